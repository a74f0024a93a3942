import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import stringWidth from 'string-width';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli/registry.js';
import { gitRepo, lanes, lanesEnv, run, CLI } from '../helpers/env.js';

// Every help page and the main tables fit the terminal: its width, else $COLUMNS, else 80
// (issue 26, item 5). Rendered here as a pipe, so 80 (and COLUMNS where set), with long ids,
// labels, tickets, paths and claims, and non-ASCII in them: a line over the width fails.

const tooLong = (text: string, width: number) =>
  text
    .split('\n')
    .map((l, i) => ({ line: i + 1, width: stringWidth(l), text: l }))
    .filter((l) => l.width > width);

function assertFits(what: string, text: string, width = 80): void {
  assert.ok(text.trim().length > 0, `${what}: printed something`);
  const long = tooLong(text, width);
  assert.deepEqual(long, [], `${what}: lines over ${width} columns`);
}

test('lanes --help and every command --help fit 80 columns, and the width follows COLUMNS', async () => {
  const env = { ...lanesEnv() };
  delete env['COLUMNS'];
  assertFits('lanes --help', (await lanes(['--help'], { env })).stdout);
  for (const c of COMMANDS) {
    const r = await lanes([c.name, '--help'], { env });
    assert.equal(r.code, 0, `${c.name}: ${r.stderr}`);
    assertFits(`lanes ${c.name} --help`, r.stdout);
  }
  // Narrower when asked: still every line within it; wider: the log page's paragraph is one line.
  assertFits('lanes log --help at 50', (await lanes(['log', '--help'], { env: { ...env, COLUMNS: '50' } })).stdout, 50);
  const wide = (await lanes(['log', '--help'], { env: { ...env, COLUMNS: '400' } })).stdout;
  assert.ok(
    wide.split('\n').some((l) => l.length > 200),
    'COLUMNS=400 leaves the paragraphs whole',
  );
});

test('ls, claims (with a wait), snapshots and store status fit 80 columns with long names', async () => {
  const repo = gitRepo();
  const env = { ...lanesEnv() };
  delete env['COLUMNS'];
  const longTicket = 'PLATFORM-INFRASTRUCTURE-MIGRATION-2026-Q4-12345';
  const label = 'überlange Beschreibung der Aufgabe 🚀 mit sehr vielen Wörtern darin';
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await run(
      process.execPath,
      [CLI, 'start', '--pid', String(process.pid), '--label', `${label} ${i}`, '--ticket', `${longTicket}-${i}`],
      { env, cwd: repo },
    );
    assert.equal(r.code, 0, r.stderr);
    ids.push(r.stdout.trim());
  }
  const as = (i: number) => ({ ...env, LANES_SESSION: ids[i]! });
  const deep = 'src/a-very-long-directory-name/another-long-directory-name/and-a-third-one/ünïcödé';
  const claimed = await lanes(['claim', `path:${deep}/`, 'lock:deployment-of-the-whole-fleet-to-prod'], {
    env: as(0),
    cwd: repo,
  });
  assert.equal(claimed.code, 0, claimed.stderr);
  // A wait still open: session 1 waits (in the background) for session 0's lock.
  const waiter = run(process.execPath, [CLI, 'claim', 'lock:deployment-of-the-whole-fleet-to-prod', '--wait=30s'], {
    env: as(1),
    cwd: repo,
  });
  writeFileSync(join(repo, 'a.txt'), 'x\n');
  assert.equal((await lanes(['snapshot'], { env: as(2), cwd: repo })).code, 0);
  let sawWait = false;
  for (let i = 0; i < 50 && !sawWait; i++) {
    const c = await lanes(['claims'], { env, cwd: repo });
    sawWait = /WAITING SESSION/.test(c.stdout);
    if (sawWait) assertFits('lanes claims (with a wait)', c.stdout);
    else await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(sawWait, 'the wait is listed');
  // Released, the waiter is granted and exits.
  assert.equal(
    (await lanes(['release', 'lock:deployment-of-the-whole-fleet-to-prod'], { env: as(0), cwd: repo })).code,
    0,
  );
  assert.equal((await waiter).code, 0);
  for (const [what, args] of [
    ['lanes ls', ['ls']],
    ['lanes ls --all', ['ls', '--all']],
    ['lanes claims', ['claims']],
    ['lanes snapshots', ['snapshots']],
    ['lanes store status', ['store', 'status']],
    ['lanes hooks status', ['hooks', 'status']],
  ] as const) {
    const r = await lanes([...args], { env: as(0), cwd: repo });
    assert.equal(r.code, 0, `${what}: ${r.stderr}`);
    assertFits(what, r.stdout);
  }
  // The shortened table still names what matters: the ticket's start and the worktree's end.
  const ls = (await lanes(['ls'], { env, cwd: repo })).stdout;
  assert.match(ls, /PLATFORM-/);
  assert.match(ls, /…/, 'long cells are shortened with an ellipsis');
});
