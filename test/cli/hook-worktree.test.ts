import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLI, gitRepo, lanes, lanesEnv, node, owner, tmp } from '../helpers/env.js';
import { fixture, hook } from '../helpers/hooks.js';

// `lanes hook claude-code worktree-create|worktree-remove` with the payloads Claude Code's
// released runner sends (name, not the documented worktree_name; worktree_path on remove): what
// it prints, what it registers, when it keeps a worktree and that it says why. The real runner
// plays this in test/real-agents/claude-worktree.test.ts.

const ID = '3f2a9c1e-5b7d-4e21-9a0c-6d8e1f2b3c4d';
const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();

async function setup() {
  const repo = realpathSync(gitRepo());
  const env = lanesEnv();
  const installed = await lanes(['hooks', 'install', 'claude-code', '--command', `${process.execPath} ${CLI}`], {
    env,
    cwd: repo,
  });
  assert.equal(installed.code, 0, installed.stderr);
  const claude = await owner(env);
  return { repo, env: { ...env, CLAUDE_PID: claude.pid }, claude };
}

const create = (w: { repo: string; env: Record<string, string> }, name: string, cwd = w.repo) =>
  hook(
    'claude-code',
    'worktree-create',
    { ...fixture('claude-code', 'worktree-create', w.repo, ID), name, cwd },
    {
      env: w.env,
      cwd,
    },
  );

const remove = (w: { repo: string; env: Record<string, string> }, path: string) =>
  hook(
    'claude-code',
    'worktree-remove',
    { ...fixture('claude-code', 'worktree-remove', w.repo, ID), cwd: path, worktree_path: path },
    { env: w.env, cwd: existsSync(path) ? path : w.repo },
  );

const sessions = async (w: { repo: string; env: Record<string, string> }) =>
  JSON.parse((await lanes(['ls', '--all', '--json'], { env: w.env, cwd: w.repo })).stdout) as {
    id: string;
    worktree: string;
    state: string;
    label: string | null;
  }[];

test('worktree-create: a lanes worktree, its path the last line of stdout, the agent’s session in it; a subagent’s gets its own', async () => {
  const w = await setup();
  const r = await create(w, 'feature/Login ✨');
  assert.equal(r.code, 0, r.stderr);
  const path = r.stdout.trim().split('\n').at(-1)!;
  assert.equal(path, `${w.repo}.lanes/feature-login`, 'absolute, real, in lanes’ place, slugged');
  assert.equal(git(path, 'branch', '--show-current'), 'lanes/feature-login');
  assert.match(
    readFileSync(join(path, '.claude', 'settings.json'), 'utf8'),
    /worktree-remove/,
    'lanes’ hooks went with it',
  );
  const marker = JSON.parse(readFileSync(join(w.repo, '.git', 'worktrees', 'feature-login', 'lanes-made'), 'utf8'));
  assert.equal(marker.by, 'claude-code');
  let all = await sessions(w);
  assert.deepEqual(
    all.map((s) => [s.id, s.worktree, s.state]),
    [[`claude-code:${ID}`, path, 'live']],
    'not live yet: the agent’s own session starts in it',
  );

  // Now live: a subagent's worktree (from where the agent stands) gets a session of its own.
  const sub = await create(w, 'agent-a476090ecc27088f4', path);
  assert.equal(sub.code, 0, sub.stderr);
  const subPath = sub.stdout.trim();
  assert.equal(subPath, `${w.repo}.lanes/agent-a476090ecc27088f4`);
  all = await sessions(w);
  const child = all.find((s) => s.id === `claude-code:${ID}.agent-a476090ecc27088f4`);
  assert.deepEqual([child?.worktree, child?.state, child?.label], [subPath, 'live', 'agent-a476090ecc27088f4']);
  // Its base is the HEAD of where the agent stood.
  git(path, 'commit', '-q', '--allow-empty', '-m', 'in the feature');
  const nested = (await create(w, 'agent-nested', path)).stdout.trim();
  assert.equal(git(nested, 'log', '-1', '--format=%s'), 'in the feature');
  await w.claude.kill();
});

test('worktree-create refuses loudly (exit 1, the reason on stderr): no name, no repository, bad JSON', async () => {
  const w = await setup();
  const noName = await hook(
    'claude-code',
    'worktree-create',
    { session_id: ID, cwd: w.repo },
    { env: w.env, cwd: w.repo },
  );
  assert.deepEqual([noName.code, noName.stdout], [1, '']);
  assert.match(noName.stderr, /names none/);
  const outside = tmp('lanes-not-a-repo-');
  const nowhere = await create(w, 'x', outside);
  assert.deepEqual([nowhere.code, nowhere.stdout], [1, '']);
  assert.match(nowhere.stderr, /no worktree made: .*not inside one/);
  const bad = await lanes(['hook', 'claude-code', 'worktree-create'], { env: w.env, cwd: w.repo, input: '{nope' });
  assert.deepEqual([bad.code, bad.stdout], [1, '']);
  await w.claude.kill();
});

test('worktree-remove keeps uncommitted work (saved first), a worktree another session or process uses, and one lanes did not make', async () => {
  const w = await setup();
  // This test process stands for Claude Code: its children are the agent's shells and servers.
  const agent = { ...w, env: { ...w.env, CLAUDE_PID: String(process.pid) } };
  const path = (await create(agent, 'wip')).stdout.trim();
  // The agent itself stands in it (its cwd, its shells): that never keeps it.
  const agentShell = node('sleeper.mjs', [], { env: w.env, cwd: path });
  await agentShell.waitFor(/ready/);
  // A process that is not the agent's (orphaned to init, as a person's background job): it keeps it.
  const stray = Number(
    execFileSync('sh', ['-c', 'sleep 600 >/dev/null 2>&1 & echo $!'], { cwd: path, encoding: 'utf8' }).trim(),
  );
  const strayKept = await remove(agent, path);
  assert.equal(strayKept.code, 1);
  assert.match(strayKept.stderr, new RegExp(`a process works inside it \\(pid ${stray} sleep 600\\)`));
  process.kill(stray, 'SIGKILL');

  writeFileSync(join(path, 'draft.md'), 'half a thought\n');
  const kept = await remove(agent, path);
  assert.equal(kept.code, 1);
  assert.match(kept.stderr, /kept .*uncommitted work \(saved in (refs\/lanes\/snapshots\/\S+)\)/);
  const ref = /saved in (refs\/lanes\/snapshots\/[^)\s]+)/.exec(kept.stderr)![1]!;
  assert.equal(git(w.repo, 'show', `${ref}:draft.md`), 'half a thought');
  assert.ok(existsSync(join(path, 'draft.md')));

  execFileSync('rm', [join(path, 'draft.md')]);
  // Someone else's session working there keeps it.
  const other = await owner(w.env);
  const s = await lanes(['start', '--pid', other.pid, '--label', 'person', '--json'], { env: w.env, cwd: path });
  assert.equal(s.code, 0, s.stderr);
  const busy = await remove(agent, path);
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /live session s-\S+ \(person\) uses it/);
  await lanes(['end', '--force', JSON.parse(s.stdout).id], { env: w.env, cwd: w.repo });

  // The hooks lanes carried in are lanes' own, not work: clean now, so it goes (its merged branch too).
  const gone = await remove(agent, path);
  assert.equal(gone.code, 0, gone.stderr);
  assert.ok(!existsSync(path));
  assert.equal(git(w.repo, 'branch', '--list', 'lanes/wip'), '');

  const handmade = join(tmp('lanes-hand-'), 'wt');
  git(w.repo, 'worktree', 'add', '-q', '-b', 'mine', handmade);
  const notOurs = await remove(w, realpathSync(handmade));
  assert.equal(notOurs.code, 1);
  assert.match(notOurs.stderr, /lanes did not create it/);
  assert.ok(existsSync(handmade));

  const already = await remove(w, join(w.repo + '.lanes', 'never-was'));
  assert.equal(already.code, 0, 'nothing there: removed as far as Claude Code is concerned');

  const log = (await lanes(['log', '--kind', 'worktree', '--json'], { env: w.env, cwd: w.repo })).stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; details: { rule?: string } });
  assert.deepEqual(
    log.map((e) => [e.kind, e.details.rule ?? null]),
    [
      ['worktree.refuse', 'process-inside'],
      ['worktree.refuse', 'uncommitted'],
      ['worktree.refuse', 'live-session'],
      ['worktree.remove', null],
      ['worktree.refuse', 'not-made-by-lanes'],
    ],
  );
  agentShell.proc.stdin.end();
  await other.kill();
  await w.claude.kill();
});

test('hooks install claude-code adds WorktreeCreate/WorktreeRemove; --no-worktree-hooks leaves them out and status says installed', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  await lanes(['hooks', 'install', 'claude-code'], { env, cwd: repo });
  const withThem = JSON.parse(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8'));
  assert.ok(withThem.hooks.WorktreeCreate && withThem.hooks.WorktreeRemove);
  assert.equal(withThem.hooks.WorktreeCreate[0].matcher, undefined, 'no matcher: Claude Code ignores it');
  await lanes(['hooks', 'uninstall', 'claude-code'], { env, cwd: repo });
  const r = await lanes(['hooks', 'install', 'claude-code', '--no-worktree-hooks'], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /installed 8 hooks/);
  const without = JSON.parse(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8'));
  assert.equal(without.hooks.WorktreeCreate, undefined);
  const st = JSON.parse((await lanes(['hooks', 'status', '--json'], { env, cwd: repo })).stdout) as {
    agent: string;
    missing: string[];
    exists: boolean;
  }[];
  assert.deepEqual(st.find((x) => x.agent === 'claude-code' && x.exists)?.missing, []);
  const misuse = await lanes(['hooks', 'install', 'codex', '--no-worktree-hooks'], { env, cwd: repo });
  assert.equal(misuse.code, 2);
});
