import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { CLI, gitRepo, lanesEnv, tmp } from '../helpers/env.js';
import { codexSeatHome, seatToken } from './codex-login.js';
import { responses } from './fake-model/responses.js';
import { FakeModel } from './fake-model/server.js';
import type { Recorded, Turn } from './fake-model/server.js';
import { ensureAgent, pin } from './install.js';
import { agentEnv, must, runAgent } from './world.js';
import { journal, seatOut } from './seat-checks.js';
import type { SeatJson } from './seat-checks.js';
import type { World } from './world.js';

// Seat failover with the released Codex CLI (issue 29): two ChatGPT logins, each a CODEX_HOME
// holding the plan's OAuth tokens (auth.json), are two seats of one pool. `lanes start --seat auto
// -- codex exec …` runs on seat A; the Responses server answers two turns and then refuses A's
// account with the plan's usage limit (HTTP 429 `usage_limit_reached`, the x-codex-* windows with
// the reset). Codex has no hook that carries the error and `codex exec` exits on it: its rollout
// says so (a token_count with the windows, the turn's task_complete with codex_error_info
// usage_limit_exceeded), read by lanes' hooks at SessionEnd and by lanes' wrapper at the exit (the
// stop case runs without hooks: the wrapper alone), and seat A is exhausted until that reset. With on_exhausted = next the conversation (its rollout
// carried to B's CODEX_HOME) resumes on seat B (`codex exec … resume ID`), which finishes the
// script; with stop the session ends (exit 3). Keys billed per call (OPENAI_API_KEY, CODEX_API_KEY:
// `codex exec` prefers the latter to any login) wait in the environment as a trap.

const { version } = pin('codex');
const TRAP = 'sk-proj-lanes-trap-billed-per-call';
const sh = (n: number): Turn => ({ tools: [{ name: 'exec_command', input: { cmd: `echo seat-turn-${n}` } }] });
const SCRIPT: Turn[] = [sh(1), sh(2), sh(3), { text: 'All done.' }];

async function seatWorld(t: TestContext, policy: 'next' | 'stop', hooks: boolean) {
  const repo = gitRepo();
  writeFileSync(join(repo, 'README.md'), 'seats\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'init'], { cwd: repo });
  const base = tmp('lanes-codex-seats-');
  const config = join(base, 'config.toml');
  writeFileSync(config, `[seats]\non_exhausted = "${policy}"\n`);
  const w: World = {
    repo,
    env: { ...lanesEnv(), LANES_CONFIG: config },
    home: join(base, 'home'),
    lanesCommand: `${process.execPath} ${CLI}`,
  };
  if (hooks) await must(['hooks', 'install', 'codex', '--command', w.lanesCommand], w);
  // The limit resets on a whole minute three hours on: not lanes' default (1 h).
  const resetsAt = Math.ceil(Date.now() / 60_000) * 60 + 3 * 3600;
  const model = new FakeModel(responses, SCRIPT, `codex-seats-${policy}`, {
    after: 2,
    resetsAt,
    account: seatToken('A'),
  });
  const url = await model.start();
  t.after(() => model.stop());
  for (const seat of ['A', 'B']) {
    const dir = codexSeatHome(join(base, `codex-${seat}`), seat, url, repo);
    await must(['seat', 'add', seat, '--agent', 'codex', '--env', `CODEX_HOME=${dir}`, '--pool', 'plus'], w);
  }
  // In the environment that starts the session, as a person's shell may have them: lanes must not pass them on.
  const env = agentEnv(w, url, { OPENAI_API_KEY: TRAP, CODEX_API_KEY: TRAP });
  return { w, model, env, resetsAt };
}

/** `lanes start --seat auto -- codex exec …`, run to its end. */
function startOnSeat(cli: string, w: World, env: Record<string, string>) {
  const codex = [cli, 'exec', '--dangerously-bypass-hook-trust', '--sandbox', 'workspace-write', '--json'];
  return runAgent(
    process.execPath,
    [CLI, 'start', '--agent', 'codex', '--seat', 'auto', '--', ...codex, 'Run the three commands.'],
    { cwd: w.repo, env, timeoutMs: 5 * 60_000 },
  );
}

/** Every request's credential: a seat's ChatGPT token only, never the trap key; grouped by seat. */
function assertNoKey(requests: Recorded[], context: string): Map<string, Recorded[]> {
  const by = new Map<string, Recorded[]>();
  for (const r of requests) {
    assert.ok(
      !JSON.stringify(r.headers).includes(TRAP),
      `a request carried the key: ${r.method} ${r.path}; ${context}`,
    );
    const seat = /lanes-seat-(\w)/.exec(String(r.headers['authorization'] ?? ''))?.[1] ?? 'none';
    if (seat !== 'none')
      assert.equal(r.headers['chatgpt-account-id'], `acct-${seatToken(seat)}`, `the account of seat ${seat}`);
    by.set(seat, [...(by.get(seat) ?? []), r]);
  }
  return by;
}

function agentOrSkip(t: TestContext) {
  const cli = ensureAgent('codex');
  if (!cli.ok) {
    t.diagnostic(`real agent codex@${version}: NOT RUN, could not install: ${cli.reason}`);
    skipOrFail(t, 'the npm registry', `codex@${version} could not be installed: ${cli.reason}`);
    return null;
  }
  return cli.bin;
}

const options = { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 };

test(
  `Codex CLI ${version} (real CLI): seat A runs out, the session resumes on seat B, no key used`,
  options,
  async (t) => {
    const cli = agentOrSkip(t);
    if (!cli) return;
    const { w, model, env, resetsAt } = await seatWorld(t, 'next', true);
    const run = await startOnSeat(cli, w, env);
    const context = `exit ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''}; served ${model.served}; stderr: ${run.stderr.slice(-2500)}; stdout: ${run.stdout.slice(-1500)}`;
    assert.ok(!run.timedOut, context);
    assert.match(run.stderr, /lanes: on seat A \(slot 1/, context);
    assert.match(run.stderr, /seat A ran out \(usage_limit_reached\) until .*; resuming the agent on seat B/, context);
    assert.equal(run.code, 0, `the agent on seat B did not finish: ${context}`);
    assert.equal(model.served, SCRIPT.length, `the script was not played to its end: ${context}`);

    const by = assertNoKey(model.requests, context);
    const a = (by.get('A') ?? []).filter((r) => r.scripted || r.refused);
    const b = (by.get('B') ?? []).filter((r) => r.scripted || r.refused);
    assert.equal(a.filter((r) => r.scripted).length, 2, `two turns on seat A: ${context}`);
    assert.equal(a.filter((r) => r.refused).length, 1, 'one refusal: Codex does not retry a usage limit');
    assert.ok(b.every((r) => !r.refused) && b.filter((r) => r.scripted).length === 2, 'the rest on seat B');
    assert.ok(Math.max(...a.map((r) => r.at)) < Math.min(...b.map((r) => r.at)), 'seat A left before seat B began');
    // Resumed, not started afresh: B's first turn carries what the commands printed on seat A.
    const first = JSON.stringify(b.find((r) => r.scripted)!.body);
    assert.ok(
      first.includes('seat-turn-1') && first.includes('seat-turn-2'),
      `B's first request lacks A's turns: ${first.slice(-1500)}`,
    );

    await seatOut(w, { why: 'usage_limit_reached', resetsAt }, context);
    const log = await journal(w);
    const exhausted = log.filter((e) => e.kind === 'seat.exhausted');
    assert.equal(exhausted.length, 1, `seat.exhausted: ${JSON.stringify(exhausted)}`);
    assert.equal(exhausted[0]!.subject, 'A');
    assert.equal(exhausted[0]!.details['until'], resetsAt * 1000);
    assert.match(String(exhausted[0]!.details['message']), /You[’']ve hit your usage limit/);
    const moved = log.filter((e) => e.kind === 'seat.failover');
    assert.deepEqual(
      moved.map((e) => [e.details['action'], e.details['from'], e.details['to']]),
      [['moved', 'A', 'B']],
    );
    const grants = log.filter((e) => e.kind === 'claim.grant' && e.subject.startsWith('seat:')).map((e) => e.subject);
    assert.deepEqual(grants, ['seat:A/1', 'seat:B/1']);
    t.diagnostic(
      `real agent codex@${version}: ${a.length} model calls on seat A, ${b.length} on seat B; refused egress: ${model.egress.join(', ') || 'none'}`,
    );
  },
);

// Without lanes' hooks in the project (a login whose hooks were never installed): lanes' wrapper
// alone reads the rollout when `codex exec` exits.
test(
  `Codex CLI ${version} (real CLI), no hooks: with on_exhausted = stop the session ends when seat A runs out`,
  options,
  async (t) => {
    const cli = agentOrSkip(t);
    if (!cli) return;
    const { w, model, env, resetsAt } = await seatWorld(t, 'stop', false);
    const run = await startOnSeat(cli, w, env);
    const context = `exit ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''}; stderr: ${run.stderr.slice(-2500)}`;
    assert.ok(!run.timedOut, context);
    assert.equal(run.code, 3, context);
    assert.match(
      run.stderr,
      /seat A ran out \(usage_limit_reached\).*stopping the session \(\[seats\] on_exhausted = stop\)/,
      context,
    );
    const by = assertNoKey(model.requests, context);
    assert.deepEqual(
      [...by.keys()].filter((k) => k !== 'none'),
      ['A'],
      'nothing ran on another seat',
    );
    await seatOut(w, { why: 'usage_limit_reached', resetsAt }, context);
    const log = await journal(w);
    const stop = log.filter((e) => e.kind === 'seat.failover');
    assert.deepEqual(
      stop.map((e) => [e.details['action'], e.details['from']]),
      [['stop', 'A']],
    );
    assert.equal(log.filter((e) => e.kind === 'seat.exhausted').length, 1);
    const sessions = JSON.parse(await must(['ls', '--all', '--json'], w)) as { id: string; endReason: string | null }[];
    const ended = sessions.find((s) => s.id === stop[0]!.session);
    assert.match(ended?.endReason ?? '', /seat A ran out.*on_exhausted = stop/);
    const seats = JSON.parse(await must(['seat', 'ls', '--json'], w)) as SeatJson[];
    assert.equal(seats.find((s) => s.name === 'B')!.state, 'free', 'seat B was never leased');
    assert.ok(!log.some((e) => e.kind === 'claim.grant' && e.subject.startsWith('seat:B')), 'seat B was never leased');
  },
);
