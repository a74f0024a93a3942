import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { FakeModel, ToolCall, Turn } from './fake-model/server.js';
import type { AgentRun, World } from './world.js';
import { CLI } from '../helpers/env.js';
import { OTHER, SEAT, SEAT_TEXT, SHARED, SHARED_TEXT, must } from './world.js';

/**
 * The one scenario every real agent plays, the model's side scripted: edit the claimed file
 * (turn 0), edit the file the other session changed (turn 1), run `git commit` in the worktree
 * the other session shares (turn 2), then finish. What lanes said must be in what the agent sent
 * its model next: that is the only proof that lanes' answer went through the agent's own runner.
 */
export interface AgentTools {
  /** The agent's own tool call replacing line `oldLine` by `newLine` in `file` (repository-relative). */
  edit(file: string, oldLine: string, newLine: string): ToolCall;
  shell(command: string): ToolCall;
  /** The `whoami` tool of the MCP server `lanes hooks install` registered, as the agent names it (when the agent offers it headless). */
  whoami?: ToolCall;
}

export const PROMPT = 'Raise the seat limit, then update the other constant and commit.';

/**
 * The lanes commands the model runs in its shell, as lanes' own texts tell it to (the world's
 * lanes): a free ticket, then the path the other session holds. The second must be refused even
 * where the agent's sandbox hides the other session's process (Codex's pid namespace): out of
 * sight is not dead, so nothing is taken over.
 */
export const MODEL_CLAIM = `${process.execPath} ${CLI} claim ticket:MODEL-1; ${process.execPath} ${CLI} claim path:src/billing/`;

export function script(tools: AgentTools): Turn[] {
  return [
    { tools: [tools.edit(SEAT, 'export const limit = 1', 'export const limit = 2')] },
    { tools: [tools.edit(SHARED, 'export const other = 1', 'export const other = 2')] },
    { tools: [tools.shell('git commit -qam "sneak everything in"')] },
    // No LANES_SESSION need reach the shell: lanes finds the agent's session by process lineage.
    { tools: [tools.shell(MODEL_CLAIM)] },
    ...(tools.whoami ? [{ tools: [tools.whoami] }] : []),
    { text: 'All done.' },
  ];
}

const head = (repo: string) => execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();

export function headBefore(w: World): string {
  return head(w.repo);
}

/** Every check of the scenario, each failing with what the agent sent and said. */
export async function assertScenario(
  agent: string,
  w: World,
  model: FakeModel,
  run: AgentRun,
  before: string,
  options: { mcp?: boolean } = {},
) {
  const loop = model.mainLoop();
  const text = (i: number) => JSON.stringify(loop[i] ?? null);
  // The conversation of request i (Messages: messages, Responses: input, Gemini: contents), for failures.
  const convo = (i: number) => {
    const b = (loop[i] ?? {}) as Record<string, unknown>;
    return JSON.stringify(b['messages'] ?? b['input'] ?? b['contents'] ?? b).slice(-2500);
  };
  const context = `agent exit ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''}; served ${model.served} turns;\nstdout: ${run.stdout.slice(-3000)}\nstderr: ${run.stderr.slice(-3000)}`;
  assert.ok(!run.timedOut, `the agent did not finish in time: ${context}`);
  const turns = options.mcp ? 6 : 5;
  assert.ok(loop.length >= turns, `the agent asked its model ${loop.length} times, expected ${turns}: ${context}`);

  // Session start: lanes' briefing is in the model's context from the first request on.
  const me = /lanes: you are session ([^\s"\\]+) in worktree/.exec(text(0));
  assert.ok(me, `no session-start briefing in the first request: ${convo(0)}`);
  const session = me[1]!;
  assert.ok(session.startsWith(`${agent}:`), `session ${session} is not ${agent}'s`);
  assert.match(text(0), new RegExp(`- ${OTHER}, SAME worktree as you; claims: path:src/billing/; edited: ${SHARED}`));

  // The claimed edit: refused, and lanes' reason is the tool's result in the model's next request.
  const denied = model.resultOf(0);
  assert.ok(denied !== null, `request 2 lacks the result of the claimed edit: ${convo(1)}`);
  assert.match(denied, new RegExp(`${SEAT} is claimed by session ${OTHER}`));
  assert.match(denied, /`lanes claim path:src\/billing\/ --wait`/);
  assert.equal(readFileSync(join(w.repo, SEAT), 'utf8'), SEAT_TEXT, 'the claimed file was edited');

  // The edit of a file the other session changed: allowed, with the warning in the model's context.
  const warning = `lanes early conflict warning: ${SHARED} also changed by session ${OTHER}`;
  assert.ok(text(2).includes(warning), `request 3 lacks the early-conflict warning: ${convo(2)}`);
  assert.ok(!text(1).includes(warning), 'the warning came before the edit that should cause it');
  assert.equal(readFileSync(join(w.repo, SHARED), 'utf8'), SHARED_TEXT.replace('other = 1', 'other = 2'));

  // git commit in the worktree the other session shares: refused with the safe alternative.
  const commit = model.resultOf(2);
  assert.ok(commit !== null, `request 4 lacks the result of git commit: ${convo(3)}`);
  assert.match(commit, /lanes commit -m/);
  assert.equal(head(w.repo), before, 'git commit went through');

  // The lanes command the model ran in its shell acted as the agent's session (the claim's holder).
  const claimed = model.resultOf(3);
  assert.ok(claimed !== null, `request 5 lacks the result of the model's lanes claim: ${convo(4)}`);
  assert.match(claimed, /claimed ticket:MODEL-1 \(token 1\)/, `the model's lanes claim failed: ${claimed}`);
  assert.match(claimed, new RegExp(`path:src/billing/ is held by session ${OTHER}`), `not refused: ${claimed}`);
  assert.doesNotMatch(claimed, /took over/, `the other session's claim was taken over: ${claimed}`);
  const grants = (await must(['log', '--kind', 'claim.grant', '--json'], w))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { session: string; subject: string });
  assert.deepEqual(
    grants.filter((g) => g.subject === 'ticket:MODEL-1').map((g) => g.session),
    [session],
    "the model's claim is held by the session the agent's hooks registered",
  );

  // lanes mcp, started by the agent from the config `lanes hooks install` wrote, acts as the
  // session the agent's hooks registered (the same owner process), never as another.
  if (options.mcp) {
    const who = model.resultOf(4);
    assert.ok(who !== null, `request 6 lacks the result of lanes' MCP whoami: ${convo(5)}`);
    assert.ok(who.includes(session), `whoami did not answer for ${session}: ${who}`);
    // The whole answer may name the other session (this one's attention: the deny it got names the
    // holder); the answer is JSON, or its text form wrapped by the agent (Gemini: <untrusted_context>).
    assert.equal(
      (/\\?"session\\?":\s*\{\s*\\?"id\\?":\s*\\?"([^"\\]+)/.exec(who) ?? /You are session (\S+)/.exec(who))?.[1],
      session,
      `whoami answered as another session: ${who.slice(0, 300)}`,
    );
  }

  // Session end: the agent's exit ended its lanes session and released what it held.
  const sessions = JSON.parse(await must(['ls', '--all', '--json'], w)) as {
    id: string;
    state: string;
    claims: unknown[];
  }[];
  const mine = sessions.find((s) => s.id === session);
  assert.ok(mine, `session ${session} is not in the store`);
  assert.equal(mine.state, 'ended', `session ${session} is ${mine.state} after the agent exited: ${context}`);
  assert.equal(sessions.find((s) => s.id === OTHER)?.state, 'live', 'the other session was touched');
  // The agent's own end-of-turn event reached lanes (issue 26: attention): the turn finished, and
  // before it lanes' deny showed on the session.
  const log = (await must(['log', '--session', session, '--json', '--limit', '1000'], w))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; details: Record<string, unknown> });
  assert.ok(
    log.some((e) => e.kind === 'attention' && e.details['state'] === 'finished'),
    `no finished turn journaled for ${session}: ${log.map((e) => e.kind).join(', ')}`,
  );
  return session;
}
