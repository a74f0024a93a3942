import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { CLI, Child, lanes } from '../helpers/env.js';
import { AGENT, runOutOnSeatA, stopFailure, world } from './seats-world.js';

// Seats (lanes seat, --seat): the agents' logins as users get them, through the built CLI, with
// real processes. The "agent" is a shell that prints which login it runs on and which billed-per-call
// variables reached it, then sleeps until lanes stops it; its seat runs out through the real hook
// (`lanes hook claude-code stop-failure`, Claude Code's StopFailure payload).

test('seat add refuses what would store a secret or select nothing; ls shows each seat, its state and who leases it', async () => {
  const w = world();
  const bad: [string[], number, RegExp][] = [
    [
      ['seat', 'add', 'k', '--agent', 'claude-code', '--env', 'ANTHROPIC_API_KEY=sk-ant-x'],
      2,
      /bill per call.*--pay-per-use/s,
    ],
    [
      ['seat', 'add', 'k', '--agent', 'claude-code', '--env', 'ANTHROPIC_API_KEY=sk-ant-x', '--pay-per-use'],
      2,
      /no secret/,
    ],
    [['seat', 'add', 'k', '--agent', 'claude-code', '--env', 'GITHUB_TOKEN=ghp_x'], 2, /no secret/],
    [['seat', 'add', 'k', '--agent', 'claude-code', '--env', 'CLAUDE_CONFIG_DIR=rel/dir'], 2, /absolute path/],
    [['seat', 'add', 'k', '--agent', 'claude-code', '--env', 'FOO=bar'], 2, /needs CLAUDE_CONFIG_DIR/],
    [['seat', 'add', 'k', '--agent', 'nope', '--env', 'A=b'], 2, /unknown agent/],
    [['seat', 'add', '../x', '--agent', 'codex', '--env', 'CODEX_HOME=/x'], 2, /invalid seat name/],
    [['seat', 'add', 'k', '--agent', 'codex', '--env', 'CODEX_HOME=/x', '--concurrency', '0'], 2, /1 to 64/],
  ];
  for (const [args, code, message] of bad) {
    const r = await w.run(args);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr + r.stdout, /sk-ant-x|ghp_x/, 'the value is never echoed');
  }
  assert.equal((await w.seats()).length, 0, 'nothing was added');
  assert.equal(
    (await w.run(['seat', 'add', 'a', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${w.dirs[0]}`])).code,
    0,
  );
  const dup = await w.run(['seat', 'add', 'a', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${w.dirs[1]}`]);
  assert.equal(dup.code, 2);
  assert.match(dup.stderr, /already has a seat named a/);
  const key = await w.run([
    'seat',
    'add',
    'key',
    '--agent',
    'claude-code',
    '--env',
    'ANTHROPIC_API_KEY=$MY_KEY',
    '--pay-per-use',
  ]);
  assert.equal(key.code, 0, key.stderr);
  const seats = await w.seats();
  assert.deepEqual(
    seats.map((s) => [s.name, s.state, s.payPerUse]),
    [
      ['a', 'free', false],
      ['key', 'free', true],
    ],
  );
  const text = (await w.run(['seat', 'ls'])).stdout;
  assert.match(text, /key \(pay-per-use\)/);
  assert.equal((await w.run(['seat', 'rm', 'key'])).code, 0);
  assert.equal((await w.run(['seat', 'rm', 'key'])).code, 1);
});

test("--seat: the session's command runs on the seat's login and without any billed-per-call variable; auto takes the least used, never a pay-per-use or an exhausted seat; the lease ends with the session", async () => {
  const w = world();
  await w.run(['seat', 'add', 'a', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${w.dirs[0]}`]);
  await w.run([
    'seat',
    'add',
    'b',
    '--agent',
    'claude-code',
    '--env',
    `CLAUDE_CONFIG_DIR=${w.dirs[1]}`,
    '--concurrency',
    '2',
  ]);
  await w.run(['seat', 'add', 'key', '--agent', 'claude-code', '--env', 'ANTHROPIC_API_KEY=$MY_KEY', '--pay-per-use']);
  const keys = {
    ANTHROPIC_API_KEY: 'sk-ant-leak',
    OPENAI_API_KEY: 'sk-openai-leak',
    GEMINI_API_KEY: 'g-leak',
    MY_KEY: 'k',
  };
  const once = await w.run(
    [
      'start',
      '--agent',
      'claude-code',
      '--seat',
      'a',
      '--',
      ...AGENT.slice(0, 2),
      'echo "on $CLAUDE_CONFIG_DIR keys ${ANTHROPIC_API_KEY:-}${OPENAI_API_KEY:-}${GEMINI_API_KEY:-}"',
    ],
    keys,
  );
  assert.equal(once.code, 0, once.stderr);
  assert.equal(once.stdout.trim(), `on ${w.dirs[0]} keys`, 'the login set, no key inherited');
  assert.deepEqual(
    (await w.seats()).map((s) => [s.name, s.state]),
    [
      ['a', 'free'],
      ['b', 'free'],
      ['key', 'free'],
    ],
    'released at the end',
  );
  // Two agents on auto: a, then b (b has two slots, a is taken); a third goes to b's second slot.
  const kids = [1, 2, 3].map(
    () =>
      new Child(process.execPath, [CLI, 'start', '--agent', 'claude-code', '--seat', 'auto', '--', ...AGENT], {
        env: { ...w.env, ...keys },
        cwd: w.repo,
      }),
  );
  const on = [];
  for (const k of kids) on.push((await k.waitFor(/on (\S+) keys (\S*)/))[1]);
  assert.deepEqual(on.sort(), [w.dirs[0], w.dirs[1], w.dirs[1]].sort());
  for (const k of kids) assert.doesNotMatch(k.stdout, /leak/);
  const full = await w.run(['start', '--agent', 'claude-code', '--seat', 'auto', '--', 'true']);
  assert.equal(full.code, 3, 'every seat in use: refused');
  assert.match(full.stderr, /no claude-code seat is free: a is in use by .*; b is in use by .*; key bills per call/);
  for (const k of kids) k.proc.kill('SIGTERM');
  await Promise.all(kids.map((k) => k.exited));
  // An exhausted seat is not leased before its reset, by name or by auto; reset makes it usable.
  const s = await lanes(['hook', 'claude-code', 'stop-failure'], {
    env: { ...w.env, CLAUDE_CONFIG_DIR: w.dirs[0] },
    cwd: w.repo,
    input: stopFailure('x', 'rate_limit', 'Usage limit reached. Try again in 2 hours.'),
  });
  assert.equal(s.code, 0, s.stderr);
  const a = (await w.seats()).find((x) => x.name === 'a')!;
  assert.equal(a.state, 'exhausted', 'found by its CLAUDE_CONFIG_DIR, no lease needed');
  assert.equal(a.why, 'rate_limit');
  assert.ok(a.until! > Date.now() + 110 * 60_000 && a.until! < Date.now() + 125 * 60_000, 'the reset the error named');
  const listed = await lanes(['ls'], { env: w.env, cwd: w.repo });
  // Wrapped at 80 columns under the table (its lines after the first indented): read as one.
  assert.match(
    listed.stdout.replace(/\n {2}/g, ' '),
    /seat a \(claude-code\) ran out \(rate_limit\); lanes uses it again after \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
  );
  const named = await w.run(['start', '--agent', 'claude-code', '--seat', 'a', '--', 'true']);
  assert.equal(named.code, 3);
  assert.match(named.stderr, /ran out \(rate_limit\) and resets at/);
  const auto = await w.run([
    'start',
    '--agent',
    'claude-code',
    '--seat',
    'auto',
    '--',
    'sh',
    '-c',
    'echo $CLAUDE_CONFIG_DIR',
  ]);
  assert.equal(auto.stdout.trim(), w.dirs[1], 'auto skips the exhausted one');
  assert.equal((await w.run(['seat', 'reset', 'a'])).code, 0);
  const again = await w.run([
    'start',
    '--agent',
    'claude-code',
    '--seat',
    'a',
    '--',
    'sh',
    '-c',
    'echo $CLAUDE_CONFIG_DIR',
  ]);
  assert.equal(again.stdout.trim(), w.dirs[0]);
});

for (const policy of ['next', 'stop', 'wait'] as const) {
  test(`a seat runs out under a running agent: [seats] on_exhausted = ${policy}`, async () => {
    const w = world();
    writeFileSync(w.config, `[seats]\non_exhausted = "${policy}"\n`);
    await w.run(['seat', 'add', 'a', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${w.dirs[0]}`]);
    if (policy !== 'wait')
      await w.run(['seat', 'add', 'b', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${w.dirs[1]}`]);
    // A key billed per call in the pool: a session on a flat login never moves there (it waits).
    else
      assert.equal(
        (await w.run(['seat', 'add', 'k', '--agent', 'claude-code', '--env', 'ANTHROPIC_API_KEY=$K', '--pay-per-use']))
          .code,
        0,
      );
    const { agent, session, hook } = await runOutOnSeatA(w, { ANTHROPIC_API_KEY: 'sk-ant-leak' });
    assert.equal(hook.code, 0);
    assert.match(hook.stderr, /seat a ran out \(rate_limit\); lanes uses it again after/);
    if (policy === 'next') {
      await agent.waitFor(new RegExp(`on ${w.dirs[1]} keys +args`), 'stdout', 30_000);
      assert.match(agent.stderr, /seat a ran out \(rate_limit\).*on seat b/);
    } else if (policy === 'stop') {
      const exit = await agent.exited;
      assert.equal(exit.code, 3);
      assert.match(agent.stderr, /stopping the session \(\[seats\] on_exhausted = stop\)/);
      const ended = JSON.parse((await w.run(['ls', '--all', '--json'])).stdout) as {
        id: string;
        state: string;
        endReason: string;
      }[];
      assert.match(ended.find((s) => s.id === session)!.endReason, /seat a ran out.*on_exhausted = stop/);
    } else {
      // Alone in its pool but for the key: the session waits, shown so, until the seat is usable again.
      await agent.waitFor(/waiting for a free seat of pool claude-code/, 'stderr', 30_000);
      const ls = JSON.parse((await w.run(['ls', '--json'])).stdout) as {
        id: string;
        attention: { state: string; why: string } | null;
      }[];
      assert.equal(ls.find((s) => s.id === session)?.attention?.state, 'waiting');
      // The morning report: the seat out with its reset, and a pool with no seat left is settled by a person.
      const report = JSON.parse((await w.run(['report', '--json'])).stdout) as {
        seatsOut: { name: string; freeInPool: number }[];
        needsYou: { what: string; command: string }[];
      };
      assert.deepEqual(
        report.seatsOut.map((x) => [x.name, x.freeInPool]),
        [['a', 0]],
      );
      assert.ok(report.needsYou.some((n) => /every seat of pool claude-code ran out \(a: rate_limit\)/.test(n.what)));
      assert.equal((await w.run(['seat', 'reset', 'a'])).code, 0);
      await agent.waitFor(
        new RegExp(`on ${w.dirs[0]} keys +args[\\s\\S]*on ${w.dirs[0]} keys +args`),
        'stdout',
        30_000,
      );
    }
    assert.doesNotMatch(agent.stdout, /leak/, 'no billed-per-call key at any start');
    const log = (await w.run(['log', '--kind', 'seat'])).stdout;
    assert.match(log, /the seat a ran out \(rate_limit/);
    if (policy === 'next') assert.match(log, /moved from seat a to b/);
    if (policy === 'stop') assert.match(log, /stopped: seat a ran out/);
    if (policy === 'wait')
      assert.match(
        log,
        /waiting for a free seat of pool claude-code: .*\(no claude-code seat is free: a ran out until/,
      );
    agent.proc.kill('SIGTERM');
    await agent.exited;
  });
}
