import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { CLI, gitRepo, lanesEnv, tmp } from '../helpers/env.js';
import { anthropic } from './fake-model/anthropic.js';
import { FakeModel } from './fake-model/server.js';
import type { Recorded, Turn } from './fake-model/server.js';
import { ensureAgent, pin } from './install.js';
import { agentEnv, must, runAgent } from './world.js';
import { journal, seatOut } from './seat-checks.js';
import type { SeatJson } from './seat-checks.js';
import type { World } from './world.js';

// Seat failover with the released Claude Code (issue 29, item 5). Two claude.ai logins, each a
// CLAUDE_CONFIG_DIR holding the OAuth token Claude Code signs in with (.credentials.json), are two
// seats of one pool. `lanes start --seat auto -- claude -p …` runs on seat A; the model server
// answers two turns and then A's account gets Anthropic's usage-limit refusal (429
// rate_limit_error, the anthropic-ratelimit-unified-* headers with the reset). Claude Code does
// not retry it for a subscriber: it stops the turn, exits, and its hooks tell lanes (StopFailure,
// and the transcript at SessionEnd), which marks seat A exhausted until that reset. With
// on_exhausted = next the wrapper resumes the conversation (`--resume ID`, carried to B's
// directory) on seat B, which finishes the script; with stop the session ends (exit 3). A key
// billed per call waits in the environment as a trap: no request may carry it.

const { version } = pin('claude-code');
const TRAP = 'sk-ant-api03-lanes-trap-billed-per-call';
const token = (seat: string) => `sk-ant-oat01-lanes-seat-${seat}`;
const sh = (n: number): Turn => ({
  tools: [{ name: 'Bash', input: { command: `echo seat-turn-${n}`, description: `turn ${n}` } }],
});
const SCRIPT: Turn[] = [sh(1), sh(2), sh(3), { text: 'All done.' }];

async function seatWorld(t: TestContext, policy: 'next' | 'stop') {
  const repo = gitRepo();
  const base = tmp('lanes-claude-seats-');
  const config = join(base, 'config.toml');
  writeFileSync(config, `[seats]\non_exhausted = "${policy}"\n`);
  const w: World = {
    repo,
    env: { ...lanesEnv(), LANES_CONFIG: config },
    home: join(base, 'home'),
    lanesCommand: `${process.execPath} ${CLI}`,
  };
  mkdirSync(w.home);
  await must(['hooks', 'install', 'claude-code', '--command', w.lanesCommand], w);
  // Each seat: a directory a person logged in with once (`CLAUDE_CONFIG_DIR=… claude`, /login):
  // the subscription's OAuth tokens in .credentials.json, as Claude Code keeps them on Linux.
  for (const seat of ['A', 'B']) {
    const dir = join(base, `claude-${seat}`);
    mkdirSync(dir);
    const oauth = {
      accessToken: token(seat),
      refreshToken: `sk-ant-ort01-lanes-seat-${seat}`,
      expiresAt: Date.now() + 30 * 86_400_000,
      scopes: ['user:inference', 'user:profile'],
      subscriptionType: 'max',
    };
    writeFileSync(join(dir, '.credentials.json'), JSON.stringify({ claudeAiOauth: oauth }), { mode: 0o600 });
    await must(
      ['seat', 'add', seat, '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${dir}`, '--pool', 'max'],
      w,
    );
  }
  // The limit resets on a whole minute three hours on: not lanes' default (1 h), and the words
  // Claude Code shows ("resets 1:05am (UTC)") name it to the minute.
  const resetsAt = Math.ceil(Date.now() / 60_000) * 60 + 3 * 3600;
  const model = new FakeModel(anthropic, SCRIPT, `claude-seats-${policy}`, {
    after: 2,
    resetsAt,
    account: token('A'),
  });
  const url = await model.start();
  t.after(() => model.stop());
  const env = agentEnv(w, url, {
    ANTHROPIC_BASE_URL: url,
    // In the environment that starts the session, as a person's shell may have it: lanes must not pass it on.
    ANTHROPIC_API_KEY: TRAP,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  return { w, model, env, resetsAt };
}

/** `lanes start --seat auto -- claude -p …`, run to its end. */
function startOnSeat(cli: string, w: World, env: Record<string, string>) {
  const claude = [cli, '-p', 'Run the three commands.', '--allowedTools', 'Bash', '--output-format', 'json'];
  return runAgent(process.execPath, [CLI, 'start', '--agent', 'claude-code', '--seat', 'auto', '--', ...claude], {
    cwd: w.repo,
    env,
    timeoutMs: 5 * 60_000,
  });
}

/** Every request's credential: a seat's OAuth token only, never the trap key. */
function assertNoKey(requests: Recorded[], context: string): Map<string, Recorded[]> {
  const by = new Map<string, Recorded[]>();
  for (const r of requests) {
    const headers = JSON.stringify(r.headers);
    assert.ok(!headers.includes(TRAP), `a request carried the pay-per-use key: ${r.method} ${r.path}; ${context}`);
    assert.equal(r.headers['x-api-key'], undefined, `a request sent an API key: ${r.method} ${r.path}`);
    const seat = /lanes-seat-(\w)/.exec(String(r.headers['authorization'] ?? ''))?.[1] ?? 'none';
    by.set(seat, [...(by.get(seat) ?? []), r]);
  }
  return by;
}

function agentOrSkip(t: TestContext) {
  const cli = ensureAgent('claude-code');
  if (!cli.ok) {
    t.diagnostic(`real agent claude-code@${version}: NOT RUN, could not install: ${cli.reason}`);
    skipOrFail(t, 'the npm registry', `claude-code@${version} could not be installed: ${cli.reason}`);
    return null;
  }
  return cli.bin;
}

const options = { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 };

test(
  `Claude Code ${version} (real CLI): seat A runs out, the session resumes on seat B, no key used`,
  options,
  async (t) => {
    const cli = agentOrSkip(t);
    if (!cli) return;
    const { w, model, env, resetsAt } = await seatWorld(t, 'next');
    const run = await startOnSeat(cli, w, env);
    const context = `exit ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''}; served ${model.served}; stderr: ${run.stderr.slice(-2000)}; stdout: ${run.stdout.slice(-1500)}`;
    assert.ok(!run.timedOut, context);
    assert.match(run.stderr, /lanes: on seat A \(slot 1/, context);
    assert.match(run.stderr, /seat A ran out \(rate_limit\) until .*; resuming the agent on seat B/, context);
    assert.equal(run.code, 0, `the agent on seat B did not finish: ${context}`);
    assert.equal(model.served, SCRIPT.length, `the script was not played to its end: ${context}`);

    const by = assertNoKey(model.requests, context);
    assert.deepEqual([...by.keys()].sort(), ['A', 'B'], `requests by credential: ${[...by.keys()].join(', ')}`);
    const a = by.get('A')!;
    const b = by.get('B')!;
    assert.equal(a.filter((r) => r.scripted).length, 2, 'two turns on seat A');
    assert.equal(a.filter((r) => r.refused).length, 1, 'one refusal: Claude Code did not retry the usage limit');
    assert.ok(b.every((r) => !r.refused) && b.filter((r) => r.scripted).length === 2, 'the rest on seat B');
    assert.ok(Math.max(...a.map((r) => r.at)) < Math.min(...b.map((r) => r.at)), 'seat A left before seat B began');
    // Resumed, not started afresh: B's first turn carries what the commands printed on seat A.
    const first = JSON.stringify(b.find((r) => r.scripted)!.body);
    assert.ok(
      first.includes('seat-turn-1') && first.includes('seat-turn-2'),
      `B's first request lacks A's turns: ${first.slice(-1500)}`,
    );

    await seatOut(w, { why: 'rate_limit', resetsAt }, context);
    const log = await journal(w);
    const exhausted = log.filter((e) => e.kind === 'seat.exhausted');
    assert.equal(exhausted.length, 1, `seat.exhausted: ${JSON.stringify(exhausted)}`);
    assert.equal(exhausted[0]!.subject, 'A');
    assert.equal(exhausted[0]!.details['until'], resetsAt * 1000);
    assert.match(String(exhausted[0]!.details['message']), /You've hit your .*limit/);
    const moved = log.filter((e) => e.kind === 'seat.failover');
    assert.deepEqual(
      moved.map((e) => [e.details['action'], e.details['from'], e.details['to']]),
      [['moved', 'A', 'B']],
    );
    assert.equal(moved[0]!.session, exhausted[0]!.session, 'the session whose lease ran out is the one moved');
    const grants = log.filter((e) => e.kind === 'claim.grant' && e.subject.startsWith('seat:')).map((e) => e.subject);
    assert.deepEqual(grants, ['seat:A/1', 'seat:B/1']);
    t.diagnostic(
      `real agent claude-code@${version}: ${a.length} requests on seat A, ${b.length} on seat B; refused egress: ${model.egress.join(', ') || 'none'}`,
    );
  },
);

test(
  `Claude Code ${version} (real CLI): with on_exhausted = stop the session ends when seat A runs out`,
  options,
  async (t) => {
    const cli = agentOrSkip(t);
    if (!cli) return;
    const { w, model, env, resetsAt } = await seatWorld(t, 'stop');
    const run = await startOnSeat(cli, w, env);
    const context = `exit ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''}; stderr: ${run.stderr.slice(-2000)}`;
    assert.ok(!run.timedOut, context);
    assert.equal(run.code, 3, context);
    assert.match(
      run.stderr,
      /seat A ran out \(rate_limit\).*stopping the session \(\[seats\] on_exhausted = stop\)/,
      context,
    );
    const by = assertNoKey(model.requests, context);
    assert.deepEqual([...by.keys()], ['A'], 'nothing ran on another seat');
    await seatOut(w, { why: 'rate_limit', resetsAt }, context);
    const log = await journal(w);
    const stop = log.filter((e) => e.kind === 'seat.failover');
    assert.deepEqual(
      stop.map((e) => [e.details['action'], e.details['from']]),
      [['stop', 'A']],
    );
    const sessions = JSON.parse(await must(['ls', '--all', '--json'], w)) as { id: string; endReason: string | null }[];
    const ended = sessions.find((s) => s.id === stop[0]!.session);
    assert.match(ended?.endReason ?? '', /seat A ran out.*on_exhausted = stop/);
    const seats = JSON.parse(await must(['seat', 'ls', '--json'], w)) as SeatJson[];
    assert.equal(seats.find((s) => s.name === 'B')!.state, 'free', 'seat B was never leased');
  },
);
