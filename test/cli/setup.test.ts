import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lanes, node } from '../helpers/env.js';
import { fixture } from '../helpers/hooks.js';
import { snapshot, world } from './setup-world.js';
import type { SetupJson } from './setup-world.js';

// `lanes setup` through the built binary: what it finds, what it shows, when it writes, that what
// it wrote works (the agent's installed hook registers the session, the guard refuses a commit),
// and that a second run writes nothing.

const S = 'dddddddd-4444-4444-8444-dddddddddddd';

test('finds the agents by their program on PATH or their config directory in HOME, and only those; --agent picks', async () => {
  const w = world({ programs: ['claude', 'cursor-agent'], dirs: ['.codex', '.config/opencode'] });
  const r = await w.setup(['--dry-run', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout) as SetupJson;
  const found = Object.fromEntries(plan.agents.map((a) => [a.agent, a]));
  assert.match(found['claude-code']?.program ?? '', /\/claude$/);
  assert.match(found['cursor']?.program ?? '', /\/cursor-agent$/);
  assert.deepEqual(found['codex']?.configDirs, [join(w.home, '.codex')]);
  assert.deepEqual(found['opencode']?.configDirs, [join(w.home, '.config', 'opencode')]);
  assert.deepEqual(
    plan.agents.filter((a) => a.found).map((a) => a.agent),
    ['claude-code', 'codex', 'cursor', 'opencode'],
  );
  const files = plan.items.map((i) => i.file.slice(w.repo.length + 1));
  for (const f of ['.claude/settings.json', '.codex/hooks.json', '.cursor/hooks.json', '.opencode/plugins/lanes.js'])
    assert.ok(files.includes(f), `${f} planned: ${files.join(' ')}`);
  assert.ok(!files.some((f) => f.startsWith('.gemini') || f.startsWith('.github')), 'nothing for agents not found');
  assert.ok(files.includes('.git/hooks/pre-commit') && files.includes('lanes.toml'));

  const one = JSON.parse((await w.setup(['--dry-run', '--json', '--agent', 'gemini'])).stdout) as SetupJson;
  assert.deepEqual(
    one.agents.filter((a) => a.selected).map((a) => a.agent),
    ['gemini'],
    'named: set up though not found',
  );
  assert.deepEqual(
    one.items.filter((i) => i.agent).map((i) => i.file.slice(w.repo.length + 1)),
    ['.gemini/settings.json'],
  );
  const bad = await w.setup(['--agent', 'vim', '--dry-run']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown agent "vim"/);
});

test('--dry-run shows the plan and writes nothing; without a terminal and without --yes it exits 2 naming --yes', async () => {
  const w = world({ programs: ['claude', 'gemini'] });
  const repoBefore = snapshot(w.repo);
  const homeBefore = snapshot(w.home);
  const dry = await w.setup(['--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(snapshot(w.repo), repoBefore, 'the dry run wrote nothing in the repository');
  assert.deepEqual(snapshot(w.home), homeBefore, 'nor in HOME');
  assert.match(dry.stdout, /\+ \.claude\/settings\.json +claude-code hooks \(new file\)/);
  assert.match(dry.stdout, /\+ \.gemini\/settings\.json +gemini hooks and MCP server \(lanes mcp\) \(new file\)/);
  assert.match(dry.stdout, /\+ \.git\/hooks\/pre-commit +the guard/);
  assert.match(dry.stdout, /\+ lanes\.toml +a commented lanes\.toml/);
  assert.match(dry.stdout, /dry run: nothing was written/);

  const refused = await w.setup([]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /stdin is not a terminal.*add --yes/);
  assert.match(refused.stderr, /lanes setup --yes/);
  assert.deepEqual(snapshot(w.repo), repoBefore, 'the repository is as it was');
  assert.deepEqual(snapshot(w.home), homeBefore, 'HOME is as it was');
  assert.ok(!existsSync(join(w.env['LANES_HOME']!, 'setup')), 'no undo record either');
});

test('--yes writes hooks, guard and lanes.toml, says what to commit; the hooks fire; a second run writes nothing', async () => {
  const w = world({ programs: ['claude'], dirs: ['.codex'] });
  const r = await w.setup(['--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /git add \.claude\/settings\.json \.mcp\.json \.codex\/hooks\.json \.codex\/config\.toml lanes\.toml && git commit/,
  );
  assert.match(r.stdout, /Do not commit:\n {2}\.git\/hooks\/pre-commit/);
  assert.match(r.stdout, /run only after `lanes allow`/);
  assert.match(readFileSync(join(w.repo, 'lanes.toml'), 'utf8'), /^# \[session\]\n# setup = /m);
  const allow = await lanes(['allow', '--show'], { env: w.env, cwd: w.repo });
  assert.match(allow.stdout, /runs nothing and sets nothing/, 'the template, all comments, needs no approval');

  const status = JSON.parse((await lanes(['hooks', 'status', '--json'], { env: w.env, cwd: w.repo })).stdout) as {
    agent: string;
    file: string;
    missing: string[];
    exists: boolean;
  }[];
  for (const agent of ['claude-code', 'codex']) {
    const row = status.find((s) => s.agent === agent && s.file.startsWith(w.repo));
    assert.ok(row?.exists && row.missing.length === 0, `${agent}'s project hooks installed: ${JSON.stringify(row)}`);
  }
  assert.equal((await lanes(['guard', 'status'], { env: w.env, cwd: w.repo })).code, 0, 'guard installed');

  // Idempotent: byte for byte, the undo record too, and no --yes needed when nothing is to be written.
  const record = () =>
    readdirSync(join(w.env['LANES_HOME']!, 'setup')).map((f) => readFileSync(join(w.env['LANES_HOME']!, 'setup', f)));
  const [repoAfter, homeAfter, recordAfter] = [snapshot(w.repo), snapshot(w.home), record()];
  const again = await w.setup([]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Everything is in place: nothing was written/);
  assert.doesNotMatch(again.stdout, /^ {2}[+~] /m);
  assert.deepEqual(snapshot(w.repo), repoAfter);
  assert.deepEqual(snapshot(w.home), homeAfter);
  assert.deepEqual(record(), recordAfter);

  // The agent's hook as installed (its command run by a shell, as Claude Code runs it) registers its session.
  const settings = JSON.parse(readFileSync(join(w.repo, '.claude', 'settings.json'), 'utf8')) as {
    hooks: Record<string, { hooks: { command: string }[] }[]>;
  };
  const command = settings.hooks['SessionStart']?.[0]?.hooks[0]?.command ?? '';
  assert.match(command, /^lanes hook claude-code session-start$/);
  const agent = node('sleeper.mjs', [], { env: w.env });
  await agent.waitFor(/ready/);
  const fired = spawnSync('sh', ['-c', command], {
    cwd: w.repo,
    env: { ...w.env, CLAUDE_PID: String(agent.proc.pid) },
    input: JSON.stringify(fixture('claude-code', 'session-start', w.repo, S)),
    encoding: 'utf8',
  });
  assert.equal(fired.status, 0, fired.stderr);
  assert.doesNotMatch(fired.stderr, /failed open/);
  const ls = JSON.parse((await lanes(['ls', '--json'], { env: w.env, cwd: w.repo })).stdout) as { id: string }[];
  assert.ok(
    ls.some((s) => s.id === `claude-code:${S}`),
    `the installed hook registered the session: ${JSON.stringify(ls)}`,
  );

  // The guard as installed: a plain commit of a path another live session claimed is refused.
  const other = node('sleeper.mjs', [], { env: w.env });
  const [, pid] = (await other.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const id = (await lanes(['start', '--label', 'other', '--pid', pid!], { env: w.env, cwd: w.repo })).stdout.trim();
  assert.equal((await lanes(['claim', 'path:README.md', '--session', id], { env: w.env, cwd: w.repo })).code, 0);
  writeFileSync(join(w.repo, 'README.md'), 'changed\n');
  w.git('add', 'README.md');
  const commit = spawnSync('git', ['commit', '-m', 'take it'], { cwd: w.repo, env: w.env, encoding: 'utf8' });
  assert.notEqual(commit.status, 0, 'the guard refused the commit');
  assert.match(commit.stderr, /lanes guard: refusing this commit/);
});

test('the lanes.toml template, uncommented, is a valid config lanes reads (it cannot drift from the reference)', async () => {
  const w = world();
  assert.equal((await w.setup(['--yes'])).code, 0);
  const file = join(w.repo, 'lanes.toml');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(/^# (\[[a-z]+\]|[A-Za-z_]+ = .*)$/gm, '$1'));
  const show = await lanes(['allow', '--show', '--json'], { env: w.env, cwd: w.repo });
  assert.equal(show.code, 0, show.stderr);
  const keys = (JSON.parse(show.stdout) as { runs: { key: string }[] }).runs.map((r) => r.key).sort();
  assert.deepEqual(keys, ['[env] APP_DB', '[env] COMPOSE_PROJECT_NAME', '[session] setup', '[session] teardown']);
});
