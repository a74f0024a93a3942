import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { CLI, Child, lanes } from '../helpers/env.js';
import { AGENT, runOutOnSeatA, stopFailure, world } from './seats-world.js';
import type { SeatJson } from './seats-world.js';

// A seat runs out and the pool's only other seat has a billed-per-call key in its own files (put
// there after it was added): the wrapper never moves onto it, and the wait it falls into says why
// no seat is usable — each seat with its reason, the file named — in its lines and the journal,
// instead of "waiting for a free seat" with nothing a person could act on. `seat ls --all-hosts`
// names another host's seats' files as not checked here (billed: null), this host's as checked.

test('failover finds only a seat whose files bill per call: the wait names the file, never leases it', async () => {
  const w = world();
  writeFileSync(w.config, `[seats]\non_exhausted = "next"\n`);
  for (const [name, dir] of [
    ['a', w.dirs[0]],
    ['b', w.dirs[1]],
  ] as const)
    assert.equal(
      (await w.run(['seat', 'add', name, '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${dir}`])).code,
      0,
    );
  const keyFile = join(w.dirs[1], 'settings.json');
  writeFileSync(keyFile, JSON.stringify({ env: { ANTHROPIC_API_KEY: 'sk-ant-in-b-settings' } }));
  const { agent, hook } = await runOutOnSeatA(w);
  assert.equal(hook.code, 0, hook.stderr);
  const line = await agent.waitFor(/waiting for a free seat of pool claude-code.*/, 'stderr', 30_000);
  assert.match(line[0], /b would bill per call: \S*settings\.json \(env\.ANTHROPIC_API_KEY\)/);
  assert.match(line[0], /a ran out until/);
  assert.ok(!agent.stderr.includes('sk-ant'), 'the key itself is never printed');
  const log = (await w.run(['log', '--kind', 'seat'])).stdout;
  assert.match(log, /waiting for a free seat.*b would bill per call/);
  const seats = JSON.parse((await w.run(['seat', 'ls', '--json'])).stdout) as (SeatJson & {
    billed: { file: string }[] | null;
  })[];
  assert.deepEqual(
    seats.map((s) => [s.name, s.billed?.map((b) => b.file) ?? null]),
    [
      ['a', []],
      ['b', [keyFile]],
    ],
  );
  assert.ok(
    seats.find((s) => s.name === 'b')!.leasedBy.every((h) => h.state !== 'live'),
    'b was never leased',
  );
  // The morning report: b is a thing to settle (the file named), and a ran out with no usable seat left.
  const report = JSON.parse((await w.run(['report', '--json'])).stdout) as {
    needsYou: { what: string; command: string }[];
    seatsBilled: { name: string; sources: { file: string }[] }[];
  };
  assert.deepEqual(
    report.seatsBilled.map((s) => [s.name, s.sources.map((x) => x.file)]),
    [['b', [keyFile]]],
  );
  const said = report.needsYou.map((n) => `${n.what} => ${n.command}`).join('\n');
  assert.match(
    said,
    /seat b \(claude-code, pool claude-code\) is never leased: .*settings\.json \(env\.ANTHROPIC_API_KEY\) => take the key out of \S*settings\.json, or lanes seat rm b/,
  );
  assert.match(said, /every seat of pool claude-code ran out \(a: rate_limit\)/);
  assert.ok(!said.includes('sk-ant'));
  // The key taken out of b's file: the waiting session moves there on its next look.
  writeFileSync(keyFile, JSON.stringify({ env: {} }));
  await agent.waitFor(new RegExp(`on ${w.dirs[1]} keys +args`), 'stdout', 30_000);
  assert.doesNotMatch(agent.stdout, /sk-ant/);
  agent.proc.kill('SIGTERM');
  await agent.exited;
  // Another host's seat (its login files are on that host): billed null, not "checked, none".
  const there = { LANES_HOST_ID: 'other-host' };
  assert.equal(
    (await w.run(['seat', 'add', 'c', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${w.dirs[2]}`], there))
      .code,
    0,
  );
  const all = JSON.parse((await w.run(['seat', 'ls', '--all-hosts', '--json'])).stdout) as {
    name: string;
    host: string;
    billed: unknown[] | null;
  }[];
  assert.deepEqual(
    all.map((s) => [s.host === 'other-host' ? 'there' : 'here', s.name, s.billed]),
    [
      ['here', 'a', []],
      ['here', 'b', []],
      ['there', 'c', null],
    ].sort((x, y) => all.findIndex((s) => s.name === x[1]) - all.findIndex((s) => s.name === y[1])),
  );
});

test('a session on a pay-per-use seat moves to the next key only when its pool says pay_per_use_next', async () => {
  for (const optIn of [false, true]) {
    const w = world();
    writeFileSync(
      w.config,
      `[seats]\non_exhausted = "next"\n${optIn ? '[seats.pools.keys]\npay_per_use_next = true\n' : ''}`,
    );
    for (const k of ['k1', 'k2'])
      assert.equal(
        (
          await w.run([
            'seat',
            'add',
            k,
            '--agent',
            'claude-code',
            '--env',
            `ANTHROPIC_API_KEY=$${k.toUpperCase()}`,
            '--pool',
            'keys',
            '--pay-per-use',
          ])
        ).code,
        0,
      );
    const agent = new Child(
      process.execPath,
      [CLI, 'start', '--agent', 'claude-code', '--seat', 'k1', '--', ...AGENT],
      {
        env: { ...w.env, K1: 'key-one', K2: 'key-two' },
        cwd: w.repo,
      },
    );
    await agent.waitFor(/keys key-one args/);
    const session = (JSON.parse((await w.run(['ls', '--json'])).stdout) as { id: string; state: string }[]).find(
      (s) => s.state === 'live',
    )!.id;
    const hook = await lanes(['hook', 'claude-code', 'stop-failure'], {
      env: { ...w.env, LANES_SESSION: session, ANTHROPIC_API_KEY: 'key-one' },
      cwd: w.repo,
      input: stopFailure(session, 'billing_error', 'Your credit balance is too low'),
    });
    assert.equal(hook.code, 0, hook.stderr);
    if (optIn) await agent.waitFor(/keys key-two args/, 'stdout', 30_000);
    else {
      const line = await agent.waitFor(/waiting for a free seat of pool keys.*/, 'stderr', 30_000);
      assert.match(line[0], /k2 bills per call \(never picked by auto\)/);
      assert.doesNotMatch(agent.stdout, /key-two/);
    }
    agent.proc.kill('SIGTERM');
    await agent.exited;
  }
});
