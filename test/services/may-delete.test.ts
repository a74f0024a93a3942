import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mayDeleteWorktree } from '../../src/services/worktrees/may-delete.js';
import type { DeletionFacts } from '../../src/services/worktrees/may-delete.js';

// The rules of "may lanes delete this worktree", each on its own: the one place every door asks.

const ok: DeletionFacts = {
  path: '/work/shop.lanes/fix-login',
  real: '/work/shop.lanes/fix-login',
  symlink: false,
  mainWorktree: '/work/shop',
  commonDir: '/work/shop/.git',
  home: '/home/dev',
  madeByLanes: true,
  movedFrom: null,
  nestedWorktrees: [],
  otherStore: null,
  locked: null,
  liveSessions: [],
  processes: [],
};

test('a worktree lanes made, idle, outside the repository and the home directory may go', () => {
  assert.deepEqual(mayDeleteWorktree(ok), { ok: true });
  assert.deepEqual(mayDeleteWorktree({ ...ok, processes: null }), { ok: true }, 'processes unknown: sessions decide');
});

test('each rule refuses, naming itself', () => {
  const cases: [Partial<DeletionFacts>, string][] = [
    [{ real: null }, 'missing'],
    [{ symlink: true }, 'symlink'],
    [{ real: '/' }, 'system-directory'],
    [{ real: '/home/dev' }, 'system-directory'],
    [{ real: '/home' }, 'system-directory'],
    [{ real: '/work/shop' }, 'contains-repository'],
    [{ real: '/work' }, 'contains-repository'],
    [{ real: '/elsewhere', commonDir: '/elsewhere/sub/.git' }, 'contains-repository'],
    [{ madeByLanes: false }, 'not-made-by-lanes'],
    [{ movedFrom: '/work/shop.lanes/elsewhere' }, 'moved'],
    [{ nestedWorktrees: ['/work/shop.lanes/fix-login/.claude/worktrees/x'] }, 'contains-worktree'],
    [{ otherStore: '/home/dev/.local/state/lanes/lanes.db' }, 'other-store'],
    [{ locked: '' }, 'locked'],
    [{ locked: 'claude agent agent-a1b2 (pid 42)' }, 'locked'],
    [{ liveSessions: ['s-abc (claude-code)'] }, 'live-session'],
    [{ processes: ['pid 7 zsh'] }, 'process-inside'],
  ];
  for (const [change, rule] of cases) {
    const v = mayDeleteWorktree({ ...ok, ...change });
    assert.equal(v.ok, false, JSON.stringify(change));
    assert.equal(!v.ok && v.rule, rule, JSON.stringify(change));
  }
});

test('a sibling whose name starts like the home or the repository is not inside it', () => {
  assert.deepEqual(mayDeleteWorktree({ ...ok, real: '/home/dev2/wt', path: '/home/dev2/wt' }), { ok: true });
  assert.deepEqual(mayDeleteWorktree({ ...ok, real: '/work/shop-old', path: '/work/shop-old' }), { ok: true });
});
