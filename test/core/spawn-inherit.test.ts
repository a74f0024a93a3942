import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, ROOT, run, tmp } from '../helpers/env.js';

// core/spawn-inherit.ts starts `lanes exec`'s command through libuv's process handle instead of
// node:child_process (which loads net and the streams). Each case runs both ways, in a process of
// its own whose stdio the child inherits, and must end the same.
type Case = { args: string[]; env?: Record<string, string>; input?: string; kill?: string; ready?: string };

async function both(c: Case): Promise<{ out: string; end: Record<string, unknown> }[]> {
  const dir = realpathSync(tmp('lanes-spawn-'));
  const results = [];
  for (const via of ['default', 'child_process']) {
    const env = c.env ?? { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
    const r = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        join(FIXTURES, 'spawn-inherit.ts'),
        via,
        dir,
        JSON.stringify(env),
        c.kill ?? '-',
        c.ready ?? '-',
        ...c.args,
      ],
      {
        env: { ...process.env, PATH: process.env['PATH'] ?? '' } as Record<string, string>,
        cwd: ROOT,
        ...(c.input ? { input: c.input } : {}),
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const at = r.stdout.lastIndexOf('\nEND ');
    const end = JSON.parse(r.stdout.slice(at + 5)) as Record<string, unknown>;
    results.push({ out: r.stdout.slice(0, at).replaceAll(dir, '<dir>'), end });
  }
  const [raw, cp] = results as [
    { out: string; end: Record<string, unknown> },
    { out: string; end: Record<string, unknown> },
  ];
  // A major spawn-inherit.ts does not know takes child_process: read that Node's
  // lib/internal/child_process.js (its _handle.spawn call), then add the major there.
  assert.equal(raw.end['via'], 'process_wrap', `Node ${process.version}: the process handle in its known call`);
  assert.equal(cp.end['via'], 'child_process');
  const { via: _a, ...rawEnd } = raw.end;
  const { via: _b, ...cpEnd } = cp.end;
  assert.deepEqual(rawEnd, cpEnd, 'the two ways end alike');
  assert.equal(raw.out, cp.out, 'the two ways print alike');
  return results;
}

test('the child gets exactly the environment, the cwd and the stdin given; its exit code comes back', async () => {
  const [r] = await both({
    args: ['sh', '-c', 'printf "%s|%s|%s|" "$A" "${B-unset}" "$(pwd)"; read x; echo "[$x]"; env | wc -l; exit 7'],
    env: { A: 'héllo 😀', PATH: process.env['PATH'] ?? '/usr/bin:/bin', EMPTY: '' },
    input: 'line one\n',
  });
  // sh adds PWD (and SHLVL, _ on some shells): the count shows nothing of the caller's came along.
  assert.match(r!.out, /^héllo 😀\|unset\|<dir>\|\[line one\]\n\s*[3-6]\n$/);
  assert.deepEqual(r!.end, { code: 7, signal: null, via: 'process_wrap' });
});

test('a death by signal is the signal; a signal sent to the child is delivered', async () => {
  const [dead] = await both({ args: ['sh', '-c', 'kill -TERM $$'] });
  assert.deepEqual(dead!.end, { code: null, signal: 'SIGTERM', via: 'process_wrap' });
  const ready = join(tmp('lanes-spawn-ready-'), 'ready');
  const [killed] = await both({
    args: [
      'sh',
      '-c', // Bounded: a signal never delivered ends it with 9 after about 20 s.
      `trap 'echo got USR1; exit 3' USR1; : > ${ready}; i=0; while [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; exit 9`,
    ],
    kill: 'SIGUSR1',
    ready,
  });
  assert.equal(killed!.out, 'got USR1\n');
  assert.deepEqual(killed!.end, { code: 3, signal: null, via: 'process_wrap' });
});

test('a command that cannot run is reported, not thrown: ENOENT and EACCES as child_process names them', async () => {
  const [missing] = await both({ args: ['lanes-no-such-command-xyz', 'a'] });
  assert.deepEqual(missing!.end, {
    error: 'ENOENT',
    syscall: 'spawn lanes-no-such-command-xyz',
    path: 'lanes-no-such-command-xyz',
    via: 'process_wrap',
  });
  const file = join(tmp('lanes-spawn-x-'), 'not-executable');
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o644);
  const [denied] = await both({ args: [file] });
  assert.equal(denied!.end['error'], 'EACCES');
});
