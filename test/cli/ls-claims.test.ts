// lanes ls reads what it shows: a session's first claims and how many it holds (the table), or
// every claim a page at a time (--json, the same bytes as the whole list printed at once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openLanes } from '../../src/index.js';
import { CLAIM_LINES, claimsToFill } from '../../src/cli/commands/ls.js';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';

test('ls --json streams every claim of every session, byte for byte the whole list; the table counts what overflows', async () => {
  const env: Record<string, string> = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off' };
  const repo = gitRepo();
  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const start = async (label: string) =>
    (await lanes(['start', '--label', label, '--pid', pid!], { env, cwd: repo })).stdout.trim();
  const [big, few, none, ended] = [await start('big'), await start('few'), await start('none'), await start('ended')];
  // 2,500 claims: past two page boundaries (1,000), in names whose byte order is not their numbers'.
  const names = Array.from({ length: 2500 }, (_, i) => `path:src/m${i % 7}/f${i}.ts`);
  const claim = (id: string, resources: string[]) =>
    lanes(['claim', '--session', id, ...resources], { env, cwd: repo });
  assert.equal((await claim(big, names)).code, 0);
  assert.equal((await claim(few, ['ticket:T-1', 'lock:a "quoted" é', 'path:docs/'])).code, 0);
  assert.equal((await lanes(['end', '--force', ended], { env, cwd: repo })).code, 0);

  const bigClaims: { name: string }[] = [];
  const lib = await openLanes({ store: join(env['LANES_HOME']!, 'lanes.db'), env, cwd: repo, session: null });
  try {
    bigClaims.push(...(await lib.sessions.get(big)).claims);
    for (const all of [false, true]) {
      const r = await lanes(['ls', '--json', ...(all ? ['--all'] : [])], { env, cwd: repo });
      assert.equal(r.code, 0, r.stderr);
      // Each with what it spent (null: no agent record read: issue 50), its claims last.
      const list = (await lib.sessions.list({ all })).map(({ claims, ...s }) => ({ ...s, spend: null, claims }));
      const whole = JSON.stringify(list, null, 2) + '\n';
      assert.equal(r.stdout, whole, `ls --json${all ? ' --all' : ''}: the list printed at once`);
      const parsed = JSON.parse(r.stdout) as { id: string; claims: unknown[] }[];
      assert.equal(parsed.find((s) => s.id === big)?.claims.length, 2500);
      assert.equal(parsed.length, all ? 4 : 3);
    }
  } finally {
    await lib.close({ heartbeat: false });
  }

  // The table: a session whose claims overflow the column says how many it holds, and shows the
  // first ones (wrapped onto CLAIM_LINES lines); one whose claims fit shows them all, its ticket
  // and paths first (the lock sorts before them in key order).
  const width = 120;
  const table = await lanes(['ls'], { env: { ...env, COLUMNS: String(width) }, cwd: repo });
  assert.equal(table.code, 0, table.stderr);
  const lines = table.stdout.split('\n');
  const line = (id: string) => lines.find((l) => l.startsWith(id)) ?? '';
  assert.match(line(big), /2500 claims: path:src\/m0\/f0\.ts path:src\/m0\/f1001\.ts/);
  assert.ok(
    lines.every((l) => l.length <= width),
    'no line past the width',
  );
  assert.match(line(few), /ticket:T-1 path:docs\/ lock:a "quoted" é$/);
  assert.doesNotMatch(line(none), /claims/);
  // However wide the column, what it shows of the first claims read is what it showed of all of
  // them: its lines (the row's first and those under it, blank before the column) read as one.
  const wide = await lanes(['ls', '--all'], { env: { ...env, COLUMNS: '2000' }, cwd: repo });
  const rows = wide.stdout.split('\n');
  const at = rows.findIndex((l) => l.startsWith(big));
  const column = rows[at]!.indexOf('2500 claims: ');
  const under: string[] = [];
  for (const l of rows.slice(at + 1)) {
    if (l.search(/\S/) !== column) break;
    under.push(l);
  }
  assert.equal(under.length, CLAIM_LINES - 1, 'wrapped onto every line the column has');
  const cell = [rows[at]!, ...under]
    .map((l) => l.slice(column))
    .join(' ')
    .replace(/^2500 claims: /, '');
  assert.ok(cell.endsWith('…'), 'cut at the column');
  const inOrder = bigClaims.map((c) => `path:${c.name}`).join(' ');
  assert.ok(inOrder.startsWith(cell.slice(0, -1)), 'the first claims, in order');
  assert.ok(cell.length < claimsToFill(2000) * 4, 'the claims read overflow the widest column');
  owner.proc.stdin.end();
});
