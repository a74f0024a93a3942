import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

test('[store] url of the user config chooses the store; LANES_STORE and --store still win; [store] in lanes.toml is refused', async () => {
  const repo = gitRepo();
  const dir = tmp();
  const configured = join(dir, 'from-config.db');
  const userConfig = join(dir, 'config.toml');
  writeFileSync(userConfig, `[store]\nurl = "${configured}"\n`);
  const env = { ...lanesEnv(), LANES_CONFIG: userConfig };
  const s = await lanes(['start', '--label', 'cfg'], { env, cwd: repo });
  assert.equal(s.code, 0, s.stderr);
  assert.ok(existsSync(configured), 'the store was created where the user config says');
  const status = JSON.parse((await lanes(['store', 'status', '--json'], { env, cwd: repo })).stdout) as {
    backend: string;
    location: string;
    counts: { open: number };
  };
  assert.deepEqual([status.backend, status.location, status.counts.open], ['sqlite', configured, 1]);
  const other = join(dir, 'other.db');
  assert.equal((await lanes(['start'], { env: { ...env, LANES_STORE: other }, cwd: repo })).code, 0);
  assert.ok(existsSync(other), 'LANES_STORE wins over the config');
  const viaFlag = join(dir, 'flag.db');
  assert.equal((await lanes(['ls', '--store', viaFlag], { env, cwd: repo })).code, 0);
  assert.ok(existsSync(viaFlag), '--store wins too');
  const mig = await lanes(['store', 'migrate'], { env, cwd: repo });
  assert.match(
    mig.stdout,
    new RegExp(
      `${configured.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: schema version \\d+ \\(sqlite, node:sqlite\\), up to date`,
    ),
  );

  writeFileSync(userConfig, '[store]\nurl = 42\n');
  const bad = await lanes(['ls'], { env, cwd: repo });
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /config\.toml:2: store\.url: expected a postgres:\/\/ URL or the path of a SQLite file, got 42/,
  );

  writeFileSync(userConfig, '');
  writeFileSync(join(repo, 'lanes.toml'), '[ports]\nnames = ["web"]\n\n[store]\nurl = "postgres://x@y/z"\n');
  const inRepo = await lanes(['env'], {
    env: { ...env, LANES_SESSION: s.stdout.trim(), LANES_STORE: configured },
    cwd: repo,
  });
  assert.equal(inRepo.code, 2);
  assert.match(inRepo.stderr, /lanes\.toml:4: \[store\]: expected \[store\] only in the user config/);
});

test('store copy and migrate refuse what they cannot do, with usage errors', async () => {
  const env = lanesEnv();
  assert.equal((await lanes(['store'], { env })).code, 2);
  assert.equal((await lanes(['store', 'frob'], { env })).code, 2);
  assert.equal((await lanes(['store', 'copy', '--from', 'a.db'], { env })).code, 2);
  assert.equal((await lanes(['store', 'status', '--force'], { env })).code, 2);
  const same = join(tmp(), 'x.db');
  writeFileSync(same, '');
  const r = await lanes(['store', 'copy', '--from', same, '--to', same], { env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /two different stores/);
});

test('store copy --force onto the same file under another spelling (relative, `..`, a symlink) is refused, the journal not doubled', async () => {
  const env = lanesEnv();
  const dir = tmp();
  const db = join(dir, 'lanes.db');
  const withStore = { ...env, LANES_STORE: db };
  assert.equal((await lanes(['start', '--pid', String(process.pid)], { env: withStore, cwd: dir })).code, 0);
  const before = (await lanes(['log', '--json'], { env: withStore, cwd: dir })).stdout;
  symlinkSync(db, join(dir, 'link.db'));
  mkdirSync(join(dir, 'sub'));
  for (const other of ['lanes.db', './sub/../lanes.db', join(dir, 'link.db')]) {
    const r = await lanes(['store', 'copy', '--from', db, '--to', other, '--force'], { env, cwd: dir });
    assert.equal(r.code, 2, `${other}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /are the same file/);
  }
  assert.equal((await lanes(['log', '--json'], { env: withStore, cwd: dir })).stdout, before, 'the journal as it was');
});
