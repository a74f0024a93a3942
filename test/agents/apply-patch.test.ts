import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patchTargets } from '../../src/agents/apply-patch.js';

test('apply_patch targets: add, update, move (both paths), delete', () => {
  const patch = [
    '*** Begin Patch',
    '*** Update File: src/billing/seat.ts',
    '@@',
    '-const limit = 1',
    '+const limit = 2',
    '*** Add File: src/billing/failover.ts',
    '+export const failover = true',
    '*** Update File: src/old_name.ts',
    '*** Move to: src/new_name.ts',
    '@@',
    '-a',
    '+b',
    '*** Delete File: src/legacy.ts',
    '*** End Patch',
  ].join('\n');
  assert.deepEqual(patchTargets(patch), [
    { path: 'src/billing/seat.ts', op: 'update' },
    { path: 'src/billing/failover.ts', op: 'add' },
    { path: 'src/old_name.ts', op: 'move-from' },
    { path: 'src/new_name.ts', op: 'move-to' },
    { path: 'src/legacy.ts', op: 'delete' },
  ]);
});

test('apply_patch targets keep spaces, unicode and emoji; CRLF endings are trimmed; body lines never count', () => {
  const patch =
    '*** Begin Patch\r\n*** Add File: docs/notes/übersicht 日本.md\r\n+*** Delete File: not/a/header.ts\r\n*** Update File: my dir/a b 🚀.ts\r\n*** Move to: my dir/c  d.ts\r\n*** End Patch\r\n';
  assert.deepEqual(patchTargets(patch), [
    { path: 'docs/notes/übersicht 日本.md', op: 'add' },
    { path: 'my dir/a b 🚀.ts', op: 'move-from' },
    { path: 'my dir/c  d.ts', op: 'move-to' },
  ]);
  assert.deepEqual(patchTargets(''), []);
  assert.deepEqual(patchTargets('*** Begin Patch\n*** End Patch'), []);
});
