// The OpenCode plugin `lanes hooks install opencode` writes (.opencode/plugins/lanes.js, or under
// ~/.config/opencode/plugins/ with --user). OpenCode loads it at start (Bun, ES module) and calls
// its hooks (plugin API: @opencode-ai/plugin's Hooks). It only forwards: every hook becomes one
// `lanes hook opencode EVENT` child process with the hook's input as JSON on stdin (the adapter,
// ./adapter.ts, translates), and it acts on the answer: `block` is thrown from
// tool.execute.before (OpenCode then fails the tool call with that message, the tool result its
// model reads), `context` goes into the session's system prompt (briefing) or after the tool's
// output (warning), `env` into the session's shell commands. lanes failing (not installed, timed
// out, bad answer) allows the call: lanes never blocks an agent for its own trouble.
// Subagent sessions (a parentID) act as their root session, as Claude Code's subagents share its
// session: a subagent's edit is its parent's work, never another session's.

/** The first line of every plugin lanes writes: how install/uninstall recognise their own file. */
export const PLUGIN_MARK = '// lanes: OpenCode plugin written by `lanes hooks install opencode`';

/** The command prefix a plugin written by opencodePlugin runs lanes with (its LANES line), or null. */
export function opencodePrefix(text: string): string | null {
  const m = /^const LANES = (\[.*\]);$/m.exec(text);
  if (!m) return null;
  try {
    const argv = JSON.parse(m[1]!) as unknown;
    return Array.isArray(argv) && argv.every((a) => typeof a === 'string') && argv.length > 0 ? argv.join(' ') : null;
  } catch {
    return null;
  }
}

export function opencodePlugin(prefix: string): string {
  const argv = prefix.trim().split(/\s+/);
  return `${PLUGIN_MARK}; \`lanes hooks uninstall opencode\` removes it.
// Each hook runs \`${prefix} hook opencode EVENT\` with OpenCode's hook input as JSON on stdin.
import { spawn, spawnSync } from 'node:child_process';

const LANES = ${JSON.stringify(argv)};
const ARGS = (event) => [...LANES.slice(1), 'hook', 'opencode', event];
const TIMEOUT_MS = 10000;
// The bus events of a wait on the person (permission.updated: its name before OpenCode 1.x).
const WAITS = new Map([
  ['permission.asked', 'permission.asked'],
  ['permission.updated', 'permission.asked'],
  ['question.asked', 'question.asked'],
]);

function parse(out) {
  try {
    const v = JSON.parse(out);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** lanes' answer to one event; {} when lanes cannot answer (the call is allowed). */
function ask(event, payload) {
  return new Promise((resolve) => {
    let out = '';
    let child;
    try {
      child = spawn(LANES[0], ARGS(event), { stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      return resolve({});
    }
    const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
    child.stdout.on('data', (d) => (out += d));
    child.on('error', () => (clearTimeout(timer), resolve({})));
    child.on('close', () => (clearTimeout(timer), resolve(parse(out))));
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify({ ...payload, pid: process.pid }));
  });
}

export const LanesPlugin = async ({ directory }) => {
  const parents = new Map(); // subagent session -> its parent
  const started = new Map(); // root session -> lanes' answer to its start
  const errored = new Set(); // root sessions whose turn stopped on an error (session.error), until idle
  const root = (id) => (parents.has(id) ? root(parents.get(id)) : id);
  const start = (sessionID, source) => {
    if (!started.has(sessionID)) started.set(sessionID, ask('session.created', { sessionID, directory, source }));
    return started.get(sessionID);
  };
  // OpenCode exiting ends lanes' sessions with it (snapshot, release); only synchronous work runs here.
  process.on('exit', () => {
    for (const sessionID of started.keys())
      spawnSync(LANES[0], ARGS('exit'), {
        input: JSON.stringify({ sessionID, directory, pid: process.pid }),
        stdio: ['pipe', 'ignore', 'ignore'],
        timeout: 5000,
      });
  });
  return {
    event: async ({ event }) => {
      const p = (event && event.properties) || {};
      const id = typeof p.sessionID === 'string' ? p.sessionID : p.info && p.info.id;
      if (typeof id !== 'string') return;
      if (event.type === 'session.created') {
        if (typeof p.info.parentID === 'string') parents.set(id, p.info.parentID);
        else await start(id, 'created');
      } else if (event.type === 'session.idle' && !parents.has(id)) {
        // OpenCode goes idle after an error too: that turn did not finish, it stopped.
        const afterError = errored.delete(id);
        await ask('session.idle', { sessionID: id, directory, ...(afterError ? { afterError } : {}) });
      } else if (WAITS.has(event.type)) {
        // A permission prompt or a question: told, never awaited (the person is shown it at once).
        void ask(WAITS.get(event.type), { sessionID: root(id), directory, permission: p.permission ?? p.type });
      } else if (event.type === 'session.error' && !parents.has(id)) {
        errored.add(id);
        const error = p.error && ((p.error.data && p.error.data.message) || p.error.name);
        void ask('session.error', { sessionID: id, directory, ...(typeof error === 'string' ? { error } : {}) });
      } else if (event.type === 'session.deleted' && !parents.has(id)) {
        started.delete(id);
        await ask('session.deleted', { sessionID: id, directory });
      }
    },
    // A new message from the person: the session works again (told, not awaited).
    'chat.message': async (input) => {
      if (input && typeof input.sessionID === 'string')
        void ask('chat.message', { sessionID: root(input.sessionID), directory });
    },
    'experimental.chat.system.transform': async (input, output) => {
      if (!input || typeof input.sessionID !== 'string' || !output || !Array.isArray(output.system)) return;
      const answer = await start(root(input.sessionID), 'resumed');
      if (typeof answer.context === 'string') output.system.push(answer.context);
    },
    'shell.env': async (input, output) => {
      if (!input || typeof input.sessionID !== 'string' || !output || !output.env) return;
      const answer = await start(root(input.sessionID), 'resumed');
      if (answer.env && typeof answer.env === 'object') Object.assign(output.env, answer.env);
    },
    'tool.execute.before': async (input, output) => {
      const sessionID = root(input.sessionID);
      const answer = await ask('tool.execute.before', { ...input, sessionID, args: output.args, directory });
      if (typeof answer.block === 'string') throw new Error(answer.block);
    },
    'tool.execute.after': async (input, output) => {
      const sessionID = root(input.sessionID);
      const answer = await ask('tool.execute.after', { ...input, sessionID, directory });
      if (typeof answer.context === 'string' && output && typeof output.output === 'string')
        output.output += '\\n\\n' + answer.context;
    },
  };
};
`;
}
