import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GROUP_TITLES } from '../../src/cli/help.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { ROOT, lanes } from '../helpers/env.js';

// The registry (src/cli/registry.ts) is the one list of commands: the command tables of the docs,
// `lanes --help` and the built binary must say the same.

const names = COMMANDS.map((c) => c.name).sort();

test("the command tables of the docs (in depth, configuration, seats) list exactly the registry's commands", () => {
  const page = ['commands-in-depth.md', 'configuration.md', 'seats.md']
    .map((f) => readFileSync(join(ROOT, 'docs', f), 'utf8'))
    .join('\n');
  const inTable = [...new Set([...page.matchAll(/^\| `lanes ([a-z-]+)/gm)].map((m) => m[1]!))].sort();
  assert.deepEqual(inTable, names);
});

test("lanes --help lists every command once, under its group's title in order; --version is package.json's", async () => {
  const help = await lanes(['--help']);
  assert.equal(help.code, 0);
  const titles = Object.values(GROUP_TITLES);
  const at = titles.map((t) => help.stdout.indexOf(`\n${t}:\n`));
  assert.ok(
    at.every((i, n) => i > 0 && (n === 0 || i > at[n - 1]!)),
    `group titles in order: ${help.stdout}`,
  );
  for (const [n, title] of titles.entries()) {
    const section = help.stdout.split(`\n${title}:\n`)[1]!.split('\n\n')[0]!;
    const listed = [...section.matchAll(/^ {2}([a-z-]+)\b/gm)].map((m) => m[1]!).sort();
    const group = Object.keys(GROUP_TITLES)[n];
    assert.deepEqual(
      listed,
      COMMANDS.filter((c) => c.group === group)
        .map((c) => c.name)
        .sort(),
      title,
    );
  }
  const version = await lanes(['--version']);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.equal(version.stdout, `lanes ${pkg.version}\n`);
});

test('each command runs from the bundle the dispatcher picks: hot ones from dist/hot.cjs, quick ones from dist/quick.cjs, the rest from dist/main.cjs', async () => {
  const hot = readFileSync(join(ROOT, 'dist', 'hot.cjs'), 'utf8');
  const quick = readFileSync(join(ROOT, 'dist', 'quick.cjs'), 'utf8');
  for (const c of COMMANDS) {
    const r = await lanes([c.name, '--help']);
    assert.equal(r.code, 0, `${c.name}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^lanes ${c.name}\\b`));
    // A command left out of the hot bundle is a stub there: its help text is not in the file.
    // The summary: the paragraph after the usage (which may wrap).
    const firstLine = r.stdout.split('\n\n')[1]?.split('\n')[0] ?? '';
    assert.equal(
      hot.includes(JSON.stringify(firstLine).slice(1, 30)),
      c.hot,
      `${c.name} ${c.hot ? 'missing from' : 'bundled into'} dist/hot.cjs`,
    );
    assert.equal(
      quick.includes(JSON.stringify(firstLine).slice(1, 30)),
      c.quick === true,
      `${c.name} ${c.quick ? 'missing from' : 'bundled into'} dist/quick.cjs`,
    );
  }
});
