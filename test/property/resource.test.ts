import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseResource, pathsOverlap, resourcesConflict } from '../../src/core/resource.js';
import type { ResourceContext, ResourceRef } from '../../src/core/resource.js';
import { expectedOverlap, expectedResource } from './resource-model.js';
import { codeOf, params, show } from './runs.js';

// Characters that have broken name handling somewhere: separators, dots, spaces of several kinds,
// C0/C1 controls, DEL, bidi overrides and marks, a colon, a backslash, non-BMP text.
const HOSTILE = [
  ...['a', 'b', 'ab', 'x.y', '.', '..', '/', '//', ' ', '-', ':', '\\', '~', 'é', '😀', '\t', '\n'],
  ...['\u0000', '\u0007', '\u007f', '\u0085', '\u009b', '\u00a0', '\u3000', '\u2028', '\ufeff'],
  ...['\u202a', '\u202e', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c', '\u200b', '\u200d', '\u2060'],
];

const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', 'b', 'src', 'lib', 'x.ts', 'my dir', '.', '..', '', '.hidden') },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 4 }) },
);
const segments = fc.array(segment, { minLength: 1, maxLength: 4 });
// Relative names mostly; absolute ones inside the repository (or one level above it) or anywhere.
const pathLike = fc
  .tuple(fc.constantFrom('', '', '', '/w/repo/', '/w/', '/'), segments, fc.boolean())
  .map(([prefix, segs, slash]) => prefix + segs.join('/') + (slash ? '/' : ''));
const rootName = fc.constantFrom('/w/repo', '/w/my repo', '/w/a.b');

const name = fc.oneof(
  { weight: 4, arbitrary: pathLike },
  {
    weight: 3,
    arbitrary: fc.array(fc.constantFrom(...HOSTILE), { minLength: 0, maxLength: 8 }).map((a) => a.join('')),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom('../../x', 'a/../../..', 'x..y', '..', '.', '../', ' ', '  \t') },
  { weight: 1, arbitrary: fc.integer({ min: 1020, max: 1030 }).map((n) => 'n'.repeat(n)) },
);
const kind = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('ticket', 'path', 'branch', 'lock', 'port', 'db-2') },
  { weight: 1, arbitrary: fc.constantFrom('', 'Lock', '9a', 'a_b', '-a', 'tïcket', ' path') },
  { weight: 1, arbitrary: fc.string({ maxLength: 5 }) },
);
const resourceText = fc.oneof(
  { weight: 9, arbitrary: fc.tuple(kind, name).map(([k, n]) => `${k}:${n}`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
);

const context: fc.Arbitrary<ResourceContext> = fc
  .record({
    root: rootName,
    below: fc.array(fc.constantFrom('a', 'b', 'src'), { maxLength: 3 }),
    outside: fc.boolean(),
    inRepo: fc.boolean(),
    forceRepoScope: fc.boolean(),
  })
  .map(({ root, below, outside, inRepo, forceRepoScope }) => ({
    cwd: outside ? '/w' : [root, ...below].join('/'),
    worktreeRoot: inRepo ? root : null,
    repoId: inRepo ? `${root}/.git` : null,
    host: 'host-1',
    forceRepoScope,
  }));

function attempt(text: string, ctx: ResourceContext): { ok: true; ref: ResourceRef } | { ok: false; code: string } {
  try {
    return { ok: true, ref: parseResource(text, ctx) };
  } catch (e) {
    return { ok: false, code: codeOf(e) };
  }
}

test('parseResource accepts exactly what the rules accept, and normalizes paths as the model does', () => {
  fc.assert(
    fc.property(resourceText, context, (text, ctx) => {
      const want = expectedResource(text, ctx);
      const got = attempt(text, ctx);
      // Whatever the input, a refusal is E_BAD_RESOURCE (exit 2), never a crash.
      if (!got.ok) assert.equal(got.code, 'E_BAD_RESOURCE');
      if (want === 'either') return;
      if (!want.ok) assert.equal(got.ok, false, `accepted ${show(text)} as ${show(got)}`);
      else assert.deepEqual(got, want, show(text));
    }),
    params(),
  );
});

const claimSegment = fc.constantFrom('a', 'b', 'ab', 'a.b', 'a b', '.x');
const claimPath = fc
  .tuple(fc.array(claimSegment, { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([segs, dir]) => segs.join('/') + (dir ? '/' : ''));

test('pathsOverlap agrees with the segment model, and is symmetric and reflexive', () => {
  fc.assert(
    fc.property(claimPath, claimPath, (a, b) => {
      assert.equal(pathsOverlap(a, b), expectedOverlap(a, b), `${a} vs ${b}`);
      assert.equal(pathsOverlap(a, b), pathsOverlap(b, a));
      assert.equal(pathsOverlap(a, a), true);
    }),
    params(),
  );
});

// Names that stay inside the repository from cwd src/a/b (at most three segments, so at most
// three `..`): nearly every case parses, and the property checks the composition, not the refusals.
const relativePath = fc
  .tuple(fc.array(fc.constantFrom('a', 'b', 'ab', 'a.b', '.', '..'), { minLength: 1, maxLength: 3 }), fc.boolean())
  .map(([segs, slash]) => segs.join('/') + (slash ? '/' : ''));

test('two parsed path claims conflict exactly when their model paths overlap (same scope and kind only)', () => {
  const ctx: ResourceContext = {
    cwd: '/w/repo/src/a/b',
    worktreeRoot: '/w/repo',
    repoId: '/w/repo/.git',
    host: 'host-1',
  };
  fc.assert(
    fc.property(relativePath, relativePath, fc.constantFrom('path', 'ticket', 'lock'), (x, y, otherKind) => {
      const a = attempt(`path:${x}`, ctx);
      const b = attempt(`path:${y}`, ctx);
      fc.pre(a.ok && b.ok);
      if (!a.ok || !b.ok) return;
      assert.equal(resourcesConflict(a.ref, b.ref), expectedOverlap(a.ref.name, b.ref.name));
      // A claim of another kind never conflicts with a path, whatever its name.
      const other = { ...b.ref, kind: otherKind };
      if (otherKind !== 'path') assert.equal(resourcesConflict(a.ref, other), false);
    }),
    params(),
  );
});
