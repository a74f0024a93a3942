import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAbsolute } from 'node:path';
import fc from 'fast-check';
import { ADAPTERS } from '../../src/agents/index.js';
import { parseHookCall } from '../../src/agents/select.js';
import { baseEvent } from '../../src/agents/adapter.js';
import type { Env, Payload } from '../../src/agents/adapter.js';
import { AGENTS, ALLOW } from '../../src/core/hook-event.js';
import type { AgentName, HookDecision, HookEvent } from '../../src/core/hook-event.js';
import { codeOf, params } from './runs.js';

// Every agent's hook payload parser, fed garbage shaped like its payloads: the call either becomes
// a well-formed HookEvent or fails open the documented way (E_HOOK_INPUT, which `lanes hook` turns
// into "allowed" plus one line on stderr); no TypeError, no relative path, no half-built event. The
// answer to any event is rendered in the agent's format without throwing.

const text = fc.oneof(
  fc.constantFrom('', 'x', '/home/dev/shop', '/home/dev/shop/src/a.ts', 'src/a.ts', '../up.ts', '.', ' '),
  fc.string({ maxLength: 12 }),
);
const junk = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 2 }));
const value = fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: junk });
const TOOLS = ['Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'Bash', 'apply_patch', 'shell', 'exec_command'];
const tool = fc.oneof(
  fc.constantFrom(...TOOLS, 'local_shell', 'StrReplace', 'Delete', 'Shell', 'write_file', 'replace'),
  fc.constantFrom('run_shell_command', 'Read', ''),
  // Copilot CLI and OpenCode.
  fc.constantFrom('edit', 'create', 'bash', 'view', 'write', 'multiedit', 'patch'),
  junk,
);
const patchLine = fc.oneof(
  fc.tuple(fc.constantFrom('Add File', 'Update File', 'Delete File', 'Move to', 'Nope'), text).map(([op, p]) => {
    return `*** ${op}: ${p}`;
  }),
  fc.constantFrom('*** Begin Patch', '*** End Patch', '+x', '-y', '@@', '*** Add File: \r', ''),
);
const patch = fc
  .tuple(fc.array(patchLine, { maxLength: 5 }), fc.constantFrom('\n', '\r\n'))
  .map(([lines, eol]) => lines.join(eol));
const toolInput = fc.oneof(
  fc.record(
    {
      file_path: value,
      notebook_path: value,
      path: value,
      command: fc.oneof(value, patch, fc.array(text, { maxLength: 4 })),
      patch: fc.oneof(patch, junk),
      input: value,
      filePath: value,
      patchText: fc.oneof(patch, junk),
    },
    { requiredKeys: [] },
  ),
  patch,
  junk,
);
// Copilot CLI's toolArgs: a JSON string (or not quite JSON), or an object.
const toolArgs = fc.oneof(
  toolInput.map((v) => JSON.stringify(v) ?? ''),
  toolInput.map((v) => (JSON.stringify(v) ?? '').slice(1)),
  toolInput,
);
const payload: fc.Arbitrary<Payload> = fc.record(
  {
    session_id: value,
    conversation_id: value,
    cursor_version: value,
    cwd: value,
    workspace_roots: fc.oneof(fc.array(value, { maxLength: 2 }), junk),
    tool_name: tool,
    tool_input: toolInput,
    file_path: value,
    command: value,
    source: value,
    reason: value,
    trigger: value,
    composer_mode: value,
    hook_event_name: value,
    // Copilot CLI (camelCase payloads)
    sessionId: value,
    timestamp: fc.oneof(text, fc.integer()),
    toolName: tool,
    toolArgs,
    // OpenCode (what lanes' plugin sends)
    sessionID: value,
    tool,
    args: toolInput,
    directory: value,
    pid: fc.oneof(fc.integer(), junk),
    extra: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
);
const env: fc.Arbitrary<Env> = fc.record(
  {
    CLAUDE_PID: fc.oneof(fc.constantFrom('1234', '0', '-1', '99999999999', 'x'), fc.string({ maxLength: 5 })),
    CLAUDE_CODE_SESSION_ID: value.map(String),
    GEMINI_SESSION_ID: value.map(String),
    COPILOT_AGENT_SESSION_ID: value.map(String),
    // Copilot CLI running Claude Code's hooks (select.ts).
    COPILOT_CLI: fc.constantFrom('1', '0', ''),
    CLAUDE_ENV_FILE: text,
  },
  { requiredKeys: [] },
);
const agent = fc.constantFrom(...AGENTS);
const eventOf = (a: AgentName) =>
  fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...ADAPTERS[a].events) }, { weight: 1, arbitrary: text });
const call = agent.chain((a) => fc.tuple(fc.constant(a), eventOf(a), payload, env));

const KINDS = [
  'session-start',
  'pre-edit',
  'pre-shell',
  'post-edit',
  'stop',
  'session-end',
  'waiting',
  'prompt',
  'subagent-stop',
  'ignore',
];

function assertWellFormed(e: HookEvent): void {
  assert.ok((AGENTS as readonly string[]).includes(e.agent), `agent ${e.agent}`);
  assert.ok(KINDS.includes(e.kind), `kind ${e.kind}`);
  assert.ok(typeof e.agentSessionId === 'string' && e.agentSessionId.length > 0, 'a session id');
  assert.ok(isAbsolute(e.cwd), `cwd ${JSON.stringify(e.cwd)} is absolute`);
  assert.ok(Array.isArray(e.paths) && e.paths.every((p) => typeof p === 'string' && isAbsolute(p)), 'paths');
  // An edit names its paths; only an apply_patch whose text names no file has none (the agent
  // refuses such a patch itself, so nothing is written, and lanes has nothing to check).
  if ((e.kind === 'pre-edit' || e.kind === 'post-edit') && !['apply_patch', 'patch'].includes(e.toolName ?? ''))
    assert.ok(e.paths.length > 0, 'an edit names its paths');
  if (e.kind === 'pre-shell') assert.ok(typeof e.command === 'string' && e.command.length > 0, 'a command');
  assert.ok(e.subagent === null || (typeof e.subagent === 'string' && e.subagent.length > 0), 'a subagent id or none');
  assert.ok(e.agentPid === null || (Number.isSafeInteger(e.agentPid) && e.agentPid > 0), `pid ${e.agentPid}`);
  // What the agent said (a wait's message, the last words of a turn): one line, bounded.
  assert.ok(
    e.message === null || (typeof e.message === 'string' && e.message.length <= 300 && !/[\n\r]/.test(e.message)),
    `message ${JSON.stringify(e.message)}`,
  );
}

const decisions: HookDecision[] = [
  ALLOW,
  { permission: 'deny', reason: 'ticket:T is held by s-1', context: null, notice: 'denied' },
  { permission: 'allow', reason: null, context: 'briefing', notice: 'warned' },
];

function assertRenders(a: AgentName, e: HookEvent): void {
  for (const d of decisions) {
    const out = ADAPTERS[a].render(e, d);
    assert.equal(out.exitCode, 0);
    if (out.stdout !== '') JSON.parse(out.stdout);
    if (a === 'gemini' || a === 'opencode') assert.notEqual(out.stdout, '', `${a} reads JSON on stdout, always`);
    if (d.permission === 'deny' && (e.kind === 'pre-edit' || e.kind === 'pre-shell'))
      assert.ok(out.stdout.includes(d.reason ?? '?'), 'a deny carries its reason');
  }
}

test('hook payload parsers: garbage becomes a well-formed event or fails open (E_HOOK_INPUT), never a crash', () => {
  fc.assert(
    fc.property(call, ([a, event, p, e]) => {
      let parsed: HookEvent;
      try {
        parsed = parseHookCall(a, event, () => p, e).event;
      } catch (err) {
        // An event the agent's hooks never send is refused before the payload is read.
        if (!ADAPTERS[a].events.includes(event)) return;
        assert.equal(codeOf(err), 'E_HOOK_INPUT', `${a} ${event}: ${(err as Error).message}`);
        return;
      }
      assertWellFormed(parsed);
      assertRenders(a, parsed);
    }),
    params(),
  );
});

test("hook answers render in each agent's format for any event, and the fail-open answer too", () => {
  fc.assert(
    fc.property(agent, fc.constantFrom(...KINDS), text, (a, kind, id) => {
      const e = { ...baseEvent(a, kind as HookEvent['kind'], id, '/w'), paths: ['/w/a'], command: 'ls' };
      assertRenders(a, e);
      assertRenders(a, baseEvent(a, 'ignore', '', ''));
    }),
    params(),
  );
});
