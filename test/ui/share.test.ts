// The page keeps the objects of sessions that did not change between two pictures (its rows are
// then skipped by Preact's memo): kept exactly when equal, replaced on any change, at any depth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shareUnchanged } from '../../src/ui/client/share.js';
import type { FleetView, UiSession } from '../../src/ui/view-types.js';

const session = (id: string, extra: Partial<UiSession> = {}): UiSession => ({
  ...{ id, state: 'live', why: '', agent: 'codex', ticket: null, label: null, host: 'h', pid: 1, repo: null },
  ...{ repoName: 'r', worktree: null, command: null, branch: null, uncommitted: null, ahead: null, target: null },
  ...{ claims: [{ resource: 'path:a.ts', token: 1, since: 5 }], createdAt: 1, lastSeenAt: 2, endedAt: null },
  ...{ endReason: null, terminal: null, attention: null, parent: null, task: null, died: null },
  ...extra,
});
const picture = (sessions: UiSession[], version: number): FleetView => ({
  ...{ at: 10, version, host: 'h', store: { backend: 'sqlite', location: '/x' }, sessions, endedHidden: 0 },
  ...{ waits: [], cycles: [], conflicts: [], hidden: [] },
  snapshots: [
    {
      ref: 'refs/x',
      owner: 'a',
      repo: '/r/.git',
      repoName: 'r',
      n: 1,
      time: 3,
      subject: 's',
      restore: 'lanes restore',
    },
  ],
});
// Each picture as the page gets it: parsed anew from its JSON text.
const received = (f: FleetView): FleetView => JSON.parse(JSON.stringify(f)) as FleetView;

test('unchanged sessions and snapshots keep their objects; a change anywhere in a session replaces it', () => {
  const first = received(picture([session('a'), session('b'), session('c')], 1));
  assert.equal(shareUnchanged(null, first), first);
  const same = shareUnchanged(first, received(picture([session('a'), session('b'), session('c')], 2)));
  assert.equal(same.sessions, first.sessions, 'nothing changed: the same list');
  assert.equal(same.snapshots, first.snapshots);
  assert.equal(same.version, 2, 'the rest of the picture is the new one');

  const deep = session('b', { claims: [{ resource: 'path:a.ts', token: 2, since: 5 }] });
  const next = shareUnchanged(first, received(picture([session('a'), deep, session('d')], 3)));
  assert.notEqual(next.sessions, first.sessions);
  assert.equal(next.sessions[0], first.sessions[0], 'a: unchanged, kept');
  assert.notEqual(next.sessions[1], first.sessions[1], 'b: a claim token changed');
  assert.deepEqual(next.sessions[1], deep);
  assert.deepEqual(
    next.sessions.map((s) => s.id),
    ['a', 'b', 'd'],
  );

  const attention = session('a', { attention: { state: 'waiting', at: 4, why: 'a question' } });
  const reordered = shareUnchanged(next, received(picture([next.sessions[2]!, attention, next.sessions[1]!], 4)));
  assert.notEqual(reordered.sessions, next.sessions, 'the order changed: a new list');
  assert.equal(reordered.sessions[0], next.sessions[2], 'd kept though it moved');
  assert.notEqual(reordered.sessions[1], next.sessions[0], 'a: its attention changed');
  const fewer = shareUnchanged(reordered, received(picture([reordered.sessions[0]!, reordered.sessions[1]!], 5)));
  assert.notEqual(fewer.sessions, reordered.sessions, 'one fewer: a new list');
  const snap = received(picture([], 6));
  snap.snapshots[0]!.n = 2;
  assert.notEqual(shareUnchanged(fewer, snap).snapshots, fewer.snapshots);
});
