import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import stringWidth from 'string-width';
import { Table } from '../../src/cli/output.js';
import { gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';

test('the table aligns columns by display width (wide characters, emoji, colours) and streams in chunks', () => {
  const rows = [
    ['s-1', '\u001b[31mdead\u001b[39m', '账单 billing', 'x'],
    ['s-22', 'live', 'billing 😀', 'y'],
    ['s-333', null, 'plain', 'z'],
  ];
  const t = new Table(['SESSION', 'STATE', 'LABEL', 'LAST'], rows);
  const lines = stripVTControlCharacters(t.toString()).trimEnd().split('\n');
  assert.equal(lines.length, 4);
  // The last column starts at the same display column on every line.
  const starts = lines.map((l) => stringWidth(l.slice(0, l.lastIndexOf(' ') + 1)));
  assert.deepEqual(new Set(starts).size, 1, lines.join('\n'));
  assert.match(lines[3] ?? '', /^s-333 {2,}- {2,}plain/, 'an empty cell is "-"');
  const many = new Table(
    ['A'],
    Array.from({ length: 2500 }, (_, i) => [i]),
  );
  const chunks = [...many.chunks(1000)];
  assert.equal(chunks.length, 3);
  assert.equal(chunks.join(''), many.toString());
});

test('ls shows live sessions and dead ones holding claims or unsaved work, and counts the rest; --all lists all', async () => {
  const env = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off' };
  const repo = gitRepo();
  const outside = tmp('lanes-outside-');
  const owners = [];
  const ids: Record<string, string> = {};
  for (const [name, args, cwd] of [
    ['live', ['--label', 'live'], repo],
    ['claims', ['--label', 'holds'], repo],
    ['dirty', ['--worktree', '--label', 'dirty'], repo],
    ['clean', ['--worktree', '--label', 'clean'], repo],
    ['nowhere', ['--label', 'nowhere'], outside],
  ] as const) {
    const o = node('sleeper.mjs', [], { env });
    const [, pid] = (await o.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    const r = await lanes(['start', ...args, '--pid', pid!, '--json'], { env, cwd });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as { id: string; worktree: string };
    ids[name] = s.id;
    if (name === 'claims') await lanes(['claim', 'path:src/', '--session', s.id], { env, cwd: repo });
    if (name === 'dirty') writeFileSync(join(s.worktree, 'wip.txt'), 'unsaved\n');
    owners.push({ name, o });
  }
  const ended = await lanes(['start', '--label', 'ended', '--', 'true'], { env, cwd: repo });
  assert.equal(ended.code, 0);
  for (const { name, o } of owners)
    if (name !== 'live') {
      o.proc.stdin.end();
      await o.exited;
    }
  const r = await lanes(['ls'], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  const shown = (text: string) => Object.keys(ids).filter((k) => text.includes(ids[k]!));
  assert.deepEqual(shown(r.stdout).sort(), ['claims', 'dirty', 'live']);
  assert.match(r.stdout, /2 dead session\(s\) without claims or unsaved work not shown/);
  assert.doesNotMatch(r.stdout, /ended/);
  const all = await lanes(['ls', '--all'], { env, cwd: repo });
  assert.deepEqual(shown(all.stdout).sort(), Object.keys(ids).sort());
  assert.match(all.stdout, /ended/);
  assert.doesNotMatch(all.stdout, /not shown/);
  const json = JSON.parse((await lanes(['ls', '--json'], { env, cwd: repo })).stdout) as unknown[];
  assert.equal(json.length, 5, '--json: every session not ended');
  owners.find((x) => x.name === 'live')?.o.proc.stdin.end();
});
