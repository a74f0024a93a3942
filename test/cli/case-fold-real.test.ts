import { test } from 'node:test';
import { needs } from '../helpers/needs.js';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { gitRepo, lanes, lanesEnv, owner } from '../helpers/env.js';

// Claims on a real case-folding directory (issue 23, item 6): a tmpfs mounted with `casefold`
// (Linux 6.13+ with CONFIG_UNICODE, as root). git finds the file system folds case and sets
// core.ignorecase itself; lanes follows git. Where the kernel has no case-folding file system the
// test is skipped with the reason (test/cli/case-fold.test.ts covers the rule with the setting).

function caseFoldingDir(): { dir: string | null; why: string } {
  const mnt = mkdtempSync(join(tmpdir(), 'lanes-casefold-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'casefold,size=16m', 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (e) {
    rmSync(mnt, { recursive: true, force: true });
    const why = String((e as { stderr?: unknown }).stderr ?? e).split('\n')[0];
    return {
      dir: null,
      why: `this kernel cannot mount a case-folding tmpfs (mount -o casefold: ${why}); needs Linux 6.13+ with CONFIG_UNICODE, as root`,
    };
  }
  after(() => {
    execFileSync('umount', ['-l', mnt]);
    rmSync(mnt, { recursive: true, force: true });
  });
  return { dir: mnt, why: '' };
}

const folding = caseFoldingDir();

test(
  'on a real case-folding directory git sets core.ignorecase and lanes compares claims case-folded',
  { skip: needs('a case-folding tmpfs', !folding.dir && folding.why) },
  async () => {
    const repo = join(folding.dir!, 'shop');
    mkdirSync(repo);
    gitRepo(repo);
    assert.equal(execFileSync('git', ['config', 'core.ignorecase'], { cwd: repo, encoding: 'utf8' }).trim(), 'true');
    mkdirSync(join(repo, 'src', 'billing'), { recursive: true });
    assert.ok(existsSync(join(repo, 'SRC', 'Billing')), 'the directory folds case');
    const env = lanesEnv();
    const { pid } = await owner(env);
    const a = (await lanes(['start', '--pid', pid], { env, cwd: repo })).stdout.trim();
    const b = (await lanes(['start', '--pid', pid], { env, cwd: repo })).stdout.trim();
    assert.equal((await lanes(['claim', 'path:src/billing/', '--session', a], { env, cwd: repo })).code, 0);
    const held = await lanes(['claim', 'path:SRC/Billing/x.ts', '--session', b], { env, cwd: repo });
    assert.equal(held.code, 3, held.stdout + held.stderr);
  },
);
