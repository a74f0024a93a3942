import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseIgnoreCase } from '../../src/git/ignore-case.js';
import { foldPath, pathsOverlap } from '../../src/core/resource.js';
import { gitRepo, lanes, lanesEnv, owner } from '../helpers/env.js';
import { answer, fixture, hook } from '../helpers/hooks.js';

// Claims on case-insensitive file systems (default APFS, Windows): where git says the repository
// ignores case (core.ignorecase, set by git on such file systems), `src/Billing/x.ts` is a file of a
// claim on `path:src/billing/`, for the claim, check, the edit check, the guard and release; the
// stored claim keeps the spelling it was given. Paths are NFC everywhere. Before, every comparison
// was byte for byte: an edit of src/Billing/x.ts passed the claim.

test('core.ignorecase is read as git reads it; folded paths overlap; NFD and NFC are one name', () => {
  assert.equal(parseIgnoreCase('[core]\n\tignorecase = true\n'), true);
  assert.equal(parseIgnoreCase('[core]\n\tbare = false\n\tignoreCase = yes ; set by git\n'), true);
  assert.equal(parseIgnoreCase('[core]\n\tignorecase = true\n[core]\n\tignorecase = false\n'), false);
  assert.equal(parseIgnoreCase('[remote "origin"]\n\tignorecase = true\n'), false);
  assert.equal(parseIgnoreCase(''), false);
  assert.equal(pathsOverlap('src/billing/', 'src/Billing/x.ts'), false, 'case-sensitive: two names');
  assert.equal(pathsOverlap('src/billing/', 'src/Billing/x.ts', true), true);
  assert.equal(foldPath('Cafe\u0301.ts'), foldPath('café.ts'));
});

test('a case-insensitive repository: claim, check, the edit check, the guard and release compare case-folded', async () => {
  const repo = gitRepo();
  execFileSync('git', ['config', 'core.ignorecase', 'true'], { cwd: repo });
  const env = lanesEnv();
  const owned = async (label: string) => {
    const { pid } = await owner(env);
    return (await lanes(['start', '--pid', pid, '--label', label], { env, cwd: repo })).stdout.trim();
  };
  const as = (id: string) => ({ env: { ...env, LANES_SESSION: id }, cwd: repo });
  const a = await owned('a');
  const b = await owned('b');
  assert.equal((await lanes(['claim', 'path:src/billing/', 'path:docs/Café.md'], as(a))).code, 0);
  const held = await lanes(['claim', 'path:src/Billing/x.ts'], as(b));
  assert.equal(held.code, 3, held.stdout + held.stderr);
  assert.match(held.stderr, /overlaps path:src\/billing\/, which is held by session/);
  // NFD from another tool names the same file.
  assert.equal((await lanes(['claim', 'path:docs/Cafe\u0301.md'], as(b))).code, 3);
  assert.equal((await lanes(['check', 'path:SRC/BILLING/y.ts'], as(b))).code, 3);
  // The edit check of an agent session.
  const B = 'bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb';
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, B), { env, cwd: repo });
  mkdirSync(join(repo, 'src', 'Billing'), { recursive: true });
  const edit = fixture('claude-code', 'pre-tool-use-edit', repo, B, (p) => {
    (p['tool_input'] as Record<string, string>)['file_path'] = join(repo, 'src', 'Billing', 'x.ts');
  });
  const out = answer(await hook('claude-code', 'pre-tool-use', edit, { env, cwd: repo }))['hookSpecificOutput'] as
    Record<string, string> | undefined;
  assert.equal(out?.['permissionDecision'], 'deny', JSON.stringify(out));
  // The guard: a staged file in another spelling of the claimed directory.
  assert.equal((await lanes(['guard', 'install'], { env, cwd: repo })).code, 0);
  writeFileSync(join(repo, 'src', 'Billing', 'x.ts'), 'x\n');
  execFileSync('git', ['add', 'src/Billing/x.ts'], { cwd: repo });
  const commit = await lanes(['guard', 'check-commit'], as(b));
  assert.equal(commit.code, 3, commit.stderr);
  assert.match(commit.stderr, /path:src\/billing\/ is claimed by session/);
  // The stored claim keeps its spelling; release in another spelling releases it.
  const claims = JSON.parse((await lanes(['claims', '--json'], { env, cwd: repo })).stdout) as {
    claim: { name: string };
  }[];
  assert.deepEqual(claims.map((c) => c.claim.name).sort(), ['docs/Café.md', 'src/billing/']);
  const rel = await lanes(['release', 'path:SRC/Billing/'], as(a));
  assert.equal(rel.code, 0, rel.stderr);
  assert.equal((await lanes(['claim', 'path:src/Billing/x.ts'], as(b))).code, 0);
});

test('a case-sensitive repository keeps two spellings apart', async () => {
  const repo = gitRepo();
  execFileSync('git', ['config', 'core.ignorecase', 'false'], { cwd: repo });
  const env = lanesEnv();
  const { pid } = await owner(env);
  const a = (await lanes(['start', '--pid', pid], { env, cwd: repo })).stdout.trim();
  const b = (await lanes(['start', '--pid', pid], { env, cwd: repo })).stdout.trim();
  assert.equal((await lanes(['claim', 'path:src/billing/', '--session', a], { env, cwd: repo })).code, 0);
  assert.equal((await lanes(['claim', 'path:src/Billing/x.ts', '--session', b], { env, cwd: repo })).code, 0);
});
