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

test('names that look like another name or hide their text are refused (issue 13, item 7)', () => {
  const refused: Array<[string, RegExp]> = [
    ['lock:\u202eevil', /bidirectional control character \(U\+202E\)/],
    ['lock:a\u2066b', /bidirectional/],
    ['lock:\u200fx', /bidirectional/],
    ['lock:a\u0085b', /control character \(U\+0085\)/],
    ['lock:a\u009bb', /control character \(U\+009B\)/],
    ['lock:a\u200bb', /invisible character \(U\+200B\)/],
    ['lock:\ufeffa', /invisible character \(U\+FEFF\)/],
    ['ticket: ', /only whitespace/],
    ['ticket:\t', /control character/],
    ['ticket:\u3000', /only whitespace/],
    ['ticket: SEAT-1', /begins or ends with whitespace/],
    ['ticket:SEAT-1 ', /begins or ends with whitespace/],
    ['path: ', /only whitespace/],
    ['branch:../../x', /not allow it as a branch name/],
    ['branch:a/../b', /not allow/],
    ['branch:.hidden', /not allow/],
    ['branch:x/.y', /not allow/],
    ['branch:main.lock', /not allow/],
    ['branch:a//b', /not allow/],
    ['branch:/a', /not allow/],
    ['branch:a/', /not allow/],
    ['branch:a.', /not allow/],
    ['branch:a b', /not allow/],
    ['branch:a~1', /not allow/],
    ['branch:a^', /not allow/],
    ['branch:a:b', /not allow/],
    ['branch:a?', /not allow/],
    ['branch:a*', /not allow/],
    ['branch:a[b', /not allow/],
    ['branch:a\\b', /not allow/],
    ['branch:a@{1}', /not allow/],
    ['branch:-x', /cannot begin with "-"/],
    ['branch:@', /be "@"/],
  ];
  for (const [text, why] of refused) {
    assert.throws(
      () => parseResource(text, ctx),
      (e: { code?: string; message?: string }) => e.code === 'E_BAD_RESOURCE' && why.test(e.message ?? ''),
      JSON.stringify(text),
    );
  }
  // Still accepted: emoji sequences (joined by U+200D), accents, inner spaces, real branch names.
  assert.equal(parseResource('ticket:👨\u200d👩\u200d👧 team', ctx).name, '👨\u200d👩\u200d👧 team');
  assert.equal(parseResource('path:docs/a b.md', ctx).name, 'src/docs/a b.md');
  for (const b of ['main', 'feature/x-1', 'lanes/ä-😀', 'release/v1.2', 'a.b/c@d', 'user@host'])
    assert.equal(parseResource(`branch:${b}`, ctx).name, b);
});
