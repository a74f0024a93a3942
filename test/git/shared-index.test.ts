import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';

// The first incident through the installed guard: two live sessions D and E in one worktree (one
// index). D stages its files and pauses; E stages its own and runs a plain `git commit`. Before the
// fix the guard warned and git committed all of them; now the commit is refused, nothing is
// committed, the index is exactly as it was, and the refusal is journaled.

async function world() {
  const repo = gitRepo();
  const env = lanesEnv();
  assert.equal((await lanes(['guard', 'install'], { env, cwd: repo })).code, 0);
  // Each session owned by a process of its own, as two agents would be.
  const session = async (label: string) => {
    const owner = node('sleeper.mjs', [], { env });
    const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    const r = await lanes(['start', '--label', label, '--agent', 'codex', '--pid', pid!], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim();
  };
  const git = (as: string | null, ...args: string[]) =>
    spawnSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      env: as ? { ...env, LANES_SESSION: as } : env,
    });
  const staged = () => git(null, 'diff', '--cached', '--name-only').stdout.trim().split('\n').filter(Boolean).sort();
  const head = () => git(null, 'rev-parse', 'HEAD').stdout.trim();
  for (const f of ['README.md', 'docs.md', 'a.txt']) writeFileSync(join(repo, f), `${f} changed\n`);
  const journal = async (kind: string) =>
    (await lanes(['log', '--kind', kind, '--json'], { env, cwd: repo })).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { session: string | null; details: Record<string, unknown> });
  return { repo, env, session, git, staged, head, journal };
}

test('the index sweep of the first incident is refused: D stages, E commits, in both orders; the index is left as it was', async () => {
  const w = await world();
  const d = await w.session('docs-writer');
  const e = await w.session('a-fixer');
  for (const [first, second] of [
    [d, e],
    [e, d],
  ] as const) {
    const before = w.head();
    // The first stages the files of "its" task; the second its own file, then commits.
    const mine = first === d ? ['README.md', 'docs.md'] : ['a.txt'];
    const theirs = first === d ? ['a.txt'] : ['README.md', 'docs.md'];
    assert.equal(w.git(first, 'add', ...mine).status, 0);
    assert.equal(w.git(second, 'add', ...theirs).status, 0);
    const c = w.git(second, 'commit', '-m', "the second's work");
    assert.notEqual(c.status, 0, 'the commit must be refused');
    assert.equal(w.head(), before, 'nothing was committed');
    assert.deepEqual(w.staged(), ['README.md', 'a.txt', 'docs.md'], 'the index is exactly as it was');
    const otherLabel = first === d ? 'docs-writer' : 'a-fixer';
    assert.match(c.stderr, new RegExp(`index is shared with session ${first} \\(${otherLabel}, agent codex\\)`));
    assert.match(c.stderr, /session .* has not claimed .*README\.md/);
    assert.match(c.stderr, /lanes commit -m MSG -- PATH/);
    assert.match(c.stderr, /lanes start --worktree/);
    assert.match(c.stderr, /LANES_ALLOW_SHARED_INDEX=1/);
    assert.equal(w.git(null, 'reset', '-q').status, 0);
  }
  const refusals = await w.journal('guard.refuse');
  assert.equal(refusals.length, 2, 'each refusal is journaled');
  assert.deepEqual(
    refusals.map((r) => r.session),
    [e, d],
  );
  assert.deepEqual(refusals[0]!.details['sharedWith'], [d]);
});

test('with claims: only paths the committer claimed may be committed from a shared index', async () => {
  const w = await world();
  const d = await w.session('docs-writer');
  const e = await w.session('a-fixer');
  const as = (s: string) => ({ env: { ...w.env, LANES_SESSION: s }, cwd: w.repo });
  assert.equal((await lanes(['claim', 'path:a.txt'], as(e))).code, 0);
  assert.equal((await lanes(['claim', 'path:README.md', 'path:docs.md'], as(d))).code, 0);
  assert.equal(w.git(d, 'add', 'README.md', 'docs.md').status, 0);
  assert.equal(w.git(e, 'add', 'a.txt').status, 0);
  // D's paths are claimed by D, a live session: E's commit is refused for the claims (exit 3).
  const swept = w.git(e, 'commit', '-m', "E's work");
  assert.notEqual(swept.status, 0);
  assert.match(swept.stderr, new RegExp(`path:README.md is claimed by session ${d}`));
  // The override waives the shared index only, never another session's claim.
  const forced = spawnSync('git', ['commit', '-m', "E's work"], {
    cwd: w.repo,
    encoding: 'utf8',
    env: { ...w.env, LANES_SESSION: e, LANES_ALLOW_SHARED_INDEX: '1' },
  });
  assert.notEqual(forced.status, 0);
  assert.match(forced.stderr, /is claimed by session/);
  assert.doesNotMatch(forced.stderr, /committing/);
  assert.equal((await w.journal('guard.override')).length, 0);
  // `lanes commit` of D's claimed path is refused (exit 3), and the refusal is journaled.
  const viaLanes = await lanes(['commit', '-m', 'x', '--', 'README.md'], as(e));
  assert.equal(viaLanes.code, 3, viaLanes.stderr);
  const commitRefusals = await w.journal('commit.refuse');
  assert.equal(commitRefusals.length, 1);
  assert.equal(commitRefusals[0]!.session, e);
  assert.equal(commitRefusals[0]!.details['code'], 'E_CLAIM_HELD');
  // E's own claimed path alone goes through, though the index is shared.
  assert.equal(w.git(d, 'restore', '--staged', 'README.md', 'docs.md').status, 0);
  const own = w.git(e, 'commit', '-m', "E's work");
  assert.equal(own.status, 0, own.stderr);
  assert.equal(w.git(null, 'show', '--name-only', '--format=', 'HEAD').stdout.trim(), 'a.txt');
});

test('a person with no session is refused too, and the override lets exactly one commit through (journaled)', async () => {
  const w = await world();
  const d = await w.session('docs-writer');
  assert.equal(w.git(d, 'add', 'README.md', 'docs.md').status, 0);
  writeFileSync(join(w.repo, 'mine.txt'), 'a person\n');
  assert.equal(w.git(null, 'add', 'mine.txt').status, 0);
  const person = w.git(null, 'commit', '-m', 'a person');
  assert.notEqual(person.status, 0);
  assert.match(person.stderr, /you \(no lanes session\) have not claimed/);
  assert.match(person.stderr, new RegExp(`shared with session ${d}`));
  const before = w.head();
  const forced = spawnSync('git', ['commit', '-q', '-m', 'on purpose'], {
    cwd: w.repo,
    encoding: 'utf8',
    env: { ...w.env, LANES_ALLOW_SHARED_INDEX: '1' },
  });
  assert.equal(forced.status, 0, forced.stderr);
  assert.notEqual(w.head(), before);
  assert.match(forced.stderr, /LANES_ALLOW_SHARED_INDEX=1: committing 3 staged path\(s\)/);
  const overrides = await w.journal('guard.override');
  assert.equal(overrides.length, 1);
  assert.equal(overrides[0]!.session, null);
  assert.deepEqual(overrides[0]!.details['notClaimed'], ['README.md', 'docs.md', 'mine.txt']);
  // One commit: the next one is refused again.
  writeFileSync(join(w.repo, 'docs.md'), 'again\n');
  assert.equal(w.git(d, 'add', 'docs.md').status, 0);
  assert.notEqual(w.git(null, 'commit', '-m', 'again').status, 0);
});

test('a worktree with one owner: its own commit, found by process lineage without LANES_SESSION, is neither refused nor warned about', async () => {
  const w = await world();
  // A shell that owns a session and then commits from itself, without exporting LANES_SESSION.
  const script = `S=$("${process.execPath}" "${CLI}" start --label solo --pid $$) || exit 9
git add README.md && git commit -q -m solo && echo "committed as $S"`;
  const r = spawnSync('sh', ['-c', script], { cwd: w.repo, encoding: 'utf8', env: w.env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /committed as s-/);
  assert.doesNotMatch(r.stderr, /also working in this worktree|shared/);
  assert.equal(execFileSync('git', ['log', '-1', '--format=%s'], { cwd: w.repo, encoding: 'utf8' }).trim(), 'solo');
});
