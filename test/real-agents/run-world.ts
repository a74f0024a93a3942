import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { CLI, gitRepo, lanesEnv, tmp } from '../helpers/env.js';
import { UNREACHABLE } from './install.js';
import { callId, sse } from './fake-model/server.js';
import type { FakeModel, Protocol, ToolCall, Turn } from './fake-model/server.js';
import { must } from './world.js';
import type { World } from './world.js';

/**
 * One agent, one session (issue 44), with a released agent CLI: a repository with lanes' hooks for
 * that agent committed and no session at all, and the agent started headless by `lanes new SHOP-1
 * --agent AGENT --background -- CMD`. Its scripted model edits a file, commits in the agent's own
 * shell, lists the sessions and lands; what lanes answered is read from what the agent sent next.
 */
export interface RunWorld extends World {
  /** Where `lanes new SHOP-1` makes the run's worktree (<repo>.lanes/shop-1), known before it exists. */
  worktree: string;
}

export const TICKET = 'SHOP-1';
export const LANES = `${process.execPath} ${CLI}`;
export const PROMPT = 'Say the readme is by the agent, commit it, look at lanes and land it.';
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

export async function runWorld(agent: string, after: (fn: () => void) => void): Promise<RunWorld> {
  const repo = realpathSync(gitRepo());
  after(() => rmSync(`${repo}.lanes`, { recursive: true, force: true }));
  const w = { repo, env: lanesEnv(), home: tmp('lanes-agent-home-'), lanesCommand: LANES };
  await must(['hooks', 'install', agent, '--command', LANES], w);
  // Committed, so the run's worktree has them from its branch and the agent's `git add -A` adds no hook file.
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'lanes hooks');
  return { ...w, worktree: join(`${repo}.lanes`, 'shop-1') };
}

export interface RunTools {
  edit(file: string, oldLine: string, newLine: string): ToolCall;
  shell(command: string): ToolCall;
}

export function script(tools: RunTools): Turn[] {
  return [
    { tools: [tools.edit('README.md', 'test', 'test by the agent')] },
    { tools: [tools.shell('git add -A && git commit -qm "agent work"')] },
    { tools: [tools.shell(`${LANES} ls --json`)] },
    { tools: [tools.shell(`${LANES} land`)] },
    { text: 'All done.' },
  ];
}

interface Listed {
  id: string;
  state: string;
  ticket: string | null;
  conversation: string | null;
}

/** `lanes new` the agent's command with `env` (the wrapper hands it on to the agent); the run's session and log. */
export async function startRun(w: RunWorld, agent: string, cmd: string[], env: Record<string, string>) {
  const out = await must(['new', TICKET, '--agent', agent, '--background', '--json', '--', ...cmd], {
    env,
    repo: w.repo,
  });
  const r = JSON.parse(out) as { session: string; worktree: string; terminal: string };
  assert.equal(r.worktree, w.worktree, 'the run worktree is not where the script edits');
  return { id: r.session, log: r.terminal.replace(/^background /, '') };
}

const sessions = async (w: RunWorld, all: boolean) =>
  JSON.parse(await must(['ls', ...(all ? ['--all'] : []), '--json'], w)) as Listed[];

/** Waits for the run to end (its agent exited, the wrapper ended the session); false past the deadline. */
export async function ended(w: RunWorld, id: string, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500)))
    if ((await sessions(w, true)).find((s) => s.id === id)?.state === 'ended') return true;
  return false;
}

/** The JSON array in a shell tool's result, whatever the agent wrapped around it. */
function listedIn(text: string): Listed[] | null {
  const end = text.lastIndexOf(']');
  for (let i = text.indexOf('['); i >= 0 && i < end; i = text.indexOf('[', i + 1))
    try {
      return JSON.parse(text.slice(i, end + 1)) as Listed[];
    } catch {
      // not the array yet
    }
  return null;
}

/** Every check of one run, each failing with what the agent sent its model and the run's log. */
export async function assertOneSession(agent: string, w: RunWorld, model: FakeModel, run: { id: string; log: string }) {
  // The wrapper ends the session when the agent exits; the agent runs in the background till then.
  const done = await ended(w, run.id, 3 * 60_000);
  const logText = existsSync(run.log) ? readFileSync(run.log, 'utf8').slice(-3000) : '(no log)';
  const loop = model.mainLoop();
  const context = `served ${model.served} turns; egress ${model.egress.join(', ') || 'none'}; run log:\n${logText}`;
  assert.ok(done, `the run did not end (its agent still runs) within 3 minutes: ${context}`);
  const convo = (i: number) => JSON.stringify(loop[i] ?? null).slice(-2500);
  assert.ok(loop.length >= 5, `the agent asked its model ${loop.length} times, expected 5: ${context}`);

  const edit = model.resultOf(0);
  assert.ok(edit !== null, `no result of the edit: ${convo(1)}`);
  assert.doesNotMatch(edit, /denied|claimed by session/i, `the edit was refused: ${edit}`);
  const commit = model.resultOf(1);
  assert.ok(commit !== null, `no result of git commit: ${convo(2)}`);
  assert.doesNotMatch(commit, /shared worktree|lanes commit -m|denied|blocked/i, `git commit was refused: ${commit}`);
  assert.equal(git(w.repo, 'log', '-1', '--format=%s', 'lanes/shop-1'), 'agent work', `not committed: ${commit}`);
  assert.equal(git(w.repo, 'show', 'lanes/shop-1:README.md'), 'test by the agent');

  const ls = model.resultOf(2);
  assert.ok(ls !== null, `no result of lanes ls: ${convo(3)}`);
  const live = listedIn(ls);
  assert.ok(live, `lanes ls --json printed no list: ${ls}`);
  assert.deepEqual(
    live.map((s) => [s.id, s.state, s.ticket]),
    [[run.id, 'live', TICKET]],
    `not exactly the run's session live: ${ls}`,
  );
  const conversation = live[0]!.conversation;
  assert.match(JSON.stringify(loop[0]), new RegExp(`you are session ${run.id} in worktree`), 'not briefed as the run');
  assert.match(conversation ?? '', new RegExp(`^${agent}:.+`), `the run is not bound to the agent: ${ls}`);

  const land = model.resultOf(3);
  assert.ok(land !== null, `no result of lanes land: ${convo(4)}`);
  assert.match(land, /landed lanes\/shop-1 on main/, `lanes land failed: ${land}`);
  assert.equal(git(w.repo, 'log', '-1', '--format=%s', 'main'), 'agent work', 'main lacks the agent commit');

  const all = await sessions(w, true);
  assert.deepEqual(
    all.map((s) => [s.id, s.state]),
    [[run.id, 'ended']],
    'one session in all',
  );
  const journal = (await must(['log', '--json', '--limit', '1000'], w))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; session: string | null; details: Record<string, unknown> });
  // The run's session.attach entries: its wrapper taking it over, and the agent's binding (details.conversation).
  const attach = journal.filter((e) => e.kind === 'session.attach' && e.session === run.id);
  assert.deepEqual(
    attach.filter((e) => e.details['conversation'] !== undefined).map((e) => e.details['conversation']),
    [conversation],
    `the binding is not journaled once: ${JSON.stringify(attach)}`,
  );
  const stray = journal.filter((e) => e.session?.startsWith(`${agent}:`));
  assert.deepEqual(
    stray.map((e) => `${e.kind} ${e.session}`),
    [],
    'an entry of a second session',
  );
  return conversation;
}

/**
 * OpenAI's chat completions as OpenCode calls them through @ai-sdk/openai-compatible (streamed
 * chunks, tool calls by id; the results come back as `tool` messages), as test/fixtures/fake-openai.mjs.
 */
export const chat: Protocol = {
  isMainLoop: (path, body) => path.endsWith('/chat/completions') && Array.isArray(body['tools']),
  answer: (res, body, turn, index) => complete(res, body, turn, index),
  other(res, method, path, body) {
    if (method === 'POST' && path.endsWith('/chat/completions')) return complete(res, body, { text: 'A title' }, -1);
    res.writeHead(404).end();
  },
  toolResult(body, id) {
    const messages = (body as { messages?: Record<string, unknown>[] }).messages ?? [];
    const m = messages.find((x) => x['role'] === 'tool' && x['tool_call_id'] === id);
    if (!m) return null;
    const c = m['content'];
    return typeof c === 'string' ? c : JSON.stringify(c);
  },
  isModelCall: (method, path) => method === 'POST' && path.endsWith('/chat/completions'),
  refuse: (res) => void res.writeHead(429).end('{"error":{"message":"rate limited"}}'),
};

function complete(res: ServerResponse, body: Record<string, unknown>, turn: Turn, index: number): void {
  const calls = (t: ToolCall, i: number) => ({
    index: i,
    id: callId(index, i),
    type: 'function',
    function: { name: t.name, arguments: JSON.stringify(t.input) },
  });
  const message =
    'tools' in turn
      ? { role: 'assistant', tool_calls: turn.tools.map(calls) }
      : { role: 'assistant', content: turn.text };
  const finish = 'tools' in turn ? 'tool_calls' : 'stop';
  // As the other scripted models answer: 100 in, 10 out (what a budget counts: budget-pause.ts).
  const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
  const base = { id: 'c', created: 1, model: 'm' };
  if (body['stream'] !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: unknown, finish_reason: string | null) =>
    sse(res, null, { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason }] });
  chunk(message, null);
  chunk({}, finish);
  sse(res, null, { ...base, object: 'chat.completion.chunk', choices: [], usage });
  res.end('data: [DONE]\n\n');
}

export const OPENCODE_VERSION = '1.18.33';

/** The opencode binary, as test/agents/opencode-real.test.ts installs it (the same cache). */
export function opencodeBinary(): { bin: string } | { why: string } {
  const given = process.env['LANES_OPENCODE_BIN'];
  if (given) return existsSync(given) ? { bin: given } : { why: `LANES_OPENCODE_BIN=${given} does not exist` };
  const cache = process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  const dir = join(cache, 'lanes-test-agents', `opencode-ai@${OPENCODE_VERSION}`);
  const bin = join(dir, 'node_modules', '.bin', 'opencode');
  if (existsSync(bin)) return { bin };
  mkdirSync(dir, { recursive: true });
  const pkg = `opencode-ai@${OPENCODE_VERSION}`;
  const args = ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', pkg];
  const r = spawnSync('npm', args, { encoding: 'utf8', timeout: 300_000 });
  if (existsSync(bin)) return { bin };
  const why = `npm install ${pkg} failed: ${(r.stderr ?? '').trim().slice(-300)}`;
  if (UNREACHABLE.test(r.stderr ?? '')) return { why };
  throw new Error(why);
}
