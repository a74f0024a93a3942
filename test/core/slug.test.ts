import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refSafeSessionId, sessionIdFromRefPart, slugify } from '../../src/core/slug.js';

test('slugs are filesystem- and ref-safe', () => {
  assert.equal(slugify('SEAT-42'), 'seat-42');
  assert.equal(slugify('Über Größe / billing fix'), 'uber-grosse-billing-fix');
  assert.equal(slugify('feature/x..y'), 'feature-x.y');
  assert.equal(slugify('..hidden.lock'), 'hidden-lock');
  assert.equal(slugify('😀😀'), 'session');
  assert.equal(slugify('  --a--  '), 'a');
  assert.ok(slugify('x'.repeat(200)).length <= 48);
});

test('session ids round-trip through ref-safe names', () => {
  for (const id of ['s-abc', 'claude-code:0b9f-1', 'a%3Ab:c']) {
    const safe = refSafeSessionId(id);
    assert.ok(!safe.includes(':'));
    assert.equal(sessionIdFromRefPart(safe), id);
  }
});
