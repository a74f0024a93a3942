import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseResource, pathsOverlap } from '../../src/core/resource.js';
import type { ResourceContext } from '../../src/core/resource.js';

const ctx: ResourceContext = { cwd: '/repo/src', worktreeRoot: '/repo', repoId: '/repo/.git', host: 'h1' };

test('kinds and scopes', () => {
  assert.deepEqual(parseResource('ticket:SEAT-42', ctx), { kind: 'ticket', name: 'SEAT-42', scope: 'repo:/repo/.git' });
  assert.deepEqual(parseResource('port:web', ctx), { kind: 'port', name: 'web', scope: 'host:h1' });
  assert.deepEqual(parseResource('port:web', { ...ctx, forceRepoScope: true }).scope, 'repo:/repo/.git');
  assert.equal(parseResource('branch:lanes/ä-😀', ctx).name, 'lanes/ä-😀');
});

test('paths are repo-relative, normalized, read from cwd; a trailing / is a directory', () => {
  assert.equal(parseResource('path:billing/', ctx).name, 'src/billing/');
  assert.equal(parseResource('path:./billing//x.ts', ctx).name, 'src/billing/x.ts');
  assert.equal(parseResource('path:/repo/docs/a b.md', ctx).name, 'docs/a b.md');
  assert.equal(parseResource('path:../lib/', ctx).name, 'lib/');
  assert.equal(parseResource('path:-leading-dash', ctx).name, 'src/-leading-dash');
  assert.equal(parseResource('path:ünï/😀.ts', ctx).name, 'src/ünï/😀.ts');
});

test('bad resources are refused with E_BAD_RESOURCE', () => {
  const bad = [
    '',
    'nokind',
    ':x',
    'Ticket:x',
    '1x:y',
    'ticket:',
    'path:../../etc/passwd',
    'path:/etc/passwd',
    'path:a\0b',
    'path:a\nb',
    'path:..',
    `ticket:${'x'.repeat(1025)}`,
  ];
  for (const b of bad)
    assert.throws(
      () => parseResource(b, ctx),
      (e: { code?: string }) => e.code === 'E_BAD_RESOURCE',
      b,
    );
  assert.throws(() => parseResource('ticket:X', { ...ctx, repoId: null, worktreeRoot: null }), /not inside/);
});

test('path overlap: equal, or a directory containing the other', () => {
  assert.ok(pathsOverlap('src/a.ts', 'src/a.ts'));
  assert.ok(pathsOverlap('src/', 'src/a.ts'));
  assert.ok(pathsOverlap('src/a.ts', 'src/'));
  assert.ok(pathsOverlap('src/', 'src/deep/'));
  assert.ok(pathsOverlap('src', 'src/'));
  assert.ok(!pathsOverlap('src/a.ts', 'src/a.tsx'));
  assert.ok(!pathsOverlap('src/ab/', 'src/a/'));
  assert.ok(
    !pathsOverlap('src/a', 'src/a/b'),
    'a file claim src/a does not cover src/a/b (only a directory claim does)',
  );
});
