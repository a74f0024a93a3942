import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// `lanes hooks status` says, per config holding lanes' hooks, whether the agent will run them here:
// the settings that turn hooks off and project trust, read where each agent reads them.
interface Row {
  agent: string;
  file: string;
  active: { runs: string; findings: string[]; fixes: string[] } | null;
}

async function status(opts: { env: Record<string, string>; cwd: string }, agent: string): Promise<Row> {
  const r = await lanes(['hooks', 'status', agent, '--json'], opts);
  assert.equal(r.code, 0, r.stderr);
  const rows = (JSON.parse(r.stdout) as Row[]).filter((x) => x.file.startsWith(opts.cwd));
  assert.equal(rows.length, 1);
  return rows[0] as Row;
}

function put(file: string, text: string): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
}

test('Codex: an untrusted project is reported (its hooks skipped, silently in codex exec), as is hooks = false', async () => {
  const repo = gitRepo();
  const home = tmp();
  const env: Record<string, string> = { ...lanesEnv(), HOME: home };
  delete env['CODEX_HOME'];
  const opts = { env, cwd: repo };
  assert.equal((await lanes(['hooks', 'install', 'codex'], opts)).code, 0);
  let row = await status(opts, 'codex');
  assert.equal(row.active?.runs, 'no');
  assert.match(row.active?.findings.join('\n') ?? '', /not a trusted project .*codex exec/);
  assert.match(row.active?.fixes.join('\n') ?? '', /trust_level = "trusted"/);
  const text = await lanes(['hooks', 'status', 'codex'], opts);
  assert.match(text.stdout, /NO/);
  assert.match(text.stdout, /fix: trust it/);

  const config = join(home, '.codex', 'config.toml');
  put(config, `[projects."${repo}"]\ntrust_level = "trusted"\n`);
  row = await status(opts, 'codex');
  assert.equal(row.active?.runs, 'unknown', 'trusted; the /hooks approval is Codex’s own');
  assert.match(row.active?.fixes.join('\n') ?? '', /\/hooks/);
  put(config, `[features]\nhooks = false\n\n[projects."${repo}"]\ntrust_level = "trusted"\n`);
  row = await status(opts, 'codex');
  assert.equal(row.active?.runs, 'no');
  assert.match(row.active?.findings.join('\n') ?? '', /\[features\] hooks = false/);
});

test('Claude Code: disableAllHooks is reported with its file; Gemini: lanes entries disabled by name, and folder trust', async () => {
  const repo = gitRepo();
  const home = tmp();
  const opts = { env: { ...lanesEnv(), HOME: home }, cwd: repo };
  assert.equal((await lanes(['hooks', 'install', 'claude-code', 'gemini'], opts)).code, 0);
  assert.equal((await status(opts, 'claude-code')).active?.runs, 'yes');
  put(join(repo, '.claude', 'settings.local.json'), '{"disableAllHooks": true}');
  const claude = await status(opts, 'claude-code');
  assert.equal(claude.active?.runs, 'no');
  assert.match(claude.active?.findings[0] ?? '', /disableAllHooks.*settings\.local\.json/);

  // An empty ~/.gemini: folder trust is on by default, and this folder is not trusted.
  const fresh = await status(opts, 'gemini');
  assert.equal(fresh.active?.runs, 'no');
  assert.match(fresh.active?.findings.join('\n') ?? '', /folder trust is on \(Gemini's default/);
  put(join(home, '.gemini', 'settings.json'), '{"security": {"folderTrust": {"enabled": false}}}');
  assert.equal((await status(opts, 'gemini')).active?.runs, 'yes', 'explicitly off');
  put(
    join(home, '.gemini', 'settings.json'),
    '{"hooksConfig": {"disabled": ["lanes-before-tool"]}, "security": {"folderTrust": {"enabled": false}}}',
  );
  assert.match((await status(opts, 'gemini')).active?.findings.join('\n') ?? '', /lanes-before-tool disabled/);
  put(join(home, '.gemini', 'settings.json'), '{"security": {"folderTrust": {"enabled": true}}}');
  const untrusted = await status(opts, 'gemini');
  assert.equal(untrusted.active?.runs, 'no');
  assert.match(untrusted.active?.findings.join('\n') ?? '', /not trusted/);
  put(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [repo]: 'TRUST_FOLDER' }));
  assert.equal((await status(opts, 'gemini')).active?.runs, 'yes');
});
