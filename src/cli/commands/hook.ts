import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { ADAPTERS, agentName } from '../../agents/index.js';
import { parseHookCall } from '../../agents/select.js';
import { baseEvent } from '../../agents/adapter.js';
import type { AgentAdapter, HookOutput, Payload } from '../../agents/adapter.js';
import { AGENTS, ALLOW, hookSessionId } from '../../core/hook-event.js';
import type { CommandSpec } from '../command.js';

/** Generous for a patch; an agent's hook payload is a few KB. */
const MAX_INPUT = 16 * 1024 * 1024;

export const command: CommandSpec = {
  name: 'hook',
  summary: "Answer one agent hook call (the agent's JSON on stdin); installed by `lanes hooks install`.",
  usage: 'hook AGENT EVENT < payload.json',
  description:
    `AGENT: ${AGENTS.join(', ')}. EVENT: the agent's event as written by \`lanes hooks install\`\n` +
    '(claude-code/codex: session-start pre-tool-use post-tool-use stop session-end; gemini: session-start\n' +
    'before-tool after-tool after-agent session-end; cursor: session-start pre-tool-use\n' +
    'before-shell-execution after-file-edit stop session-end).\n' +
    "Always exits 0 and answers in the agent's own output format. A deny always carries a reason.\n" +
    'Anything unexpected (bad JSON, unknown event, an unreachable store) fails open: the call is\n' +
    'allowed and one line on stderr says why.',
  options: {},
  minPositionals: 2,
  maxPositionals: 2,
  failOpen: true,
  async run(args, io) {
    const agent = agentName(args.positionals[0] ?? '');
    try {
      const { adapter, event } = parseHookCall(agent, args.positionals[1] ?? '', readPayload, process.env);
      if (event.kind === 'ignore') return emit(adapter.render(event, ALLOW));
      const lanes = await io.lanes({ cwd: event.cwd, session: hookSessionId(event), notice: false });
      return emit(adapter.render(event, await lanes.hook(event)));
    } catch (e) {
      // Bad input, the store locked or unreadable, git failing, …: never block the agent for lanes' own trouble.
      return emit(
        silentFor(ADAPTERS[agent]),
        `lanes hook: failed open (the call was allowed): ${(e as Error).message}`,
      );
    }
  },
};

function readPayload(): Payload {
  // fstat, not tty.isatty: node:tty loads net and streams, a few ms of every tool call.
  if (fstatSync(0).isCharacterDevice())
    throw new Error('no payload: stdin is a terminal (agents pipe their JSON to this command)');
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(65536);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        // A non-blocking pipe: wait for data by reopening it blocking.
        const fd = openSync('/dev/stdin', constants.O_RDONLY);
        try {
          n = readSync(fd, buf, 0, buf.length, null);
        } finally {
          closeSync(fd);
        }
      } else if (code === 'EOF') n = 0;
      else throw e;
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_INPUT) throw new Error(`the payload is larger than ${MAX_INPUT} bytes`);
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new Error('empty payload on stdin');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`the payload is not JSON (${(e as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error('the payload is not a JSON object');
  return value as Payload;
}

/** The agent's "allowed, nothing to say" (Gemini wants {} on stdout). */
function silentFor(adapter: AgentAdapter): HookOutput {
  return adapter.render(baseEvent(adapter.name, 'ignore', '', ''), ALLOW);
}

/** Written with writeSync: the answer is small, and no stdout stream has to be set up in every tool call. */
function emit(output: HookOutput, extraNotice?: string): number {
  if (output.stdout) writeAll(1, output.stdout);
  const stderr = output.stderr + (extraNotice ? `${extraNotice}\n` : '');
  if (stderr) writeAll(2, stderr);
  return output.exitCode;
}

function writeAll(fd: number, text: string): void {
  const data = Buffer.from(text);
  for (let off = 0; off < data.length;) {
    try {
      off += writeSync(fd, data, off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}
