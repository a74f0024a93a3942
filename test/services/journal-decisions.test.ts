// The decisions services make outside the store reach the journal once each, with who and why:
// a hook's deny (with the holder), a commit, a snapshot, a restore, a
// state clear refused inside a mutate, a handoff of the wrong writer, a stale fencing token. And an
// allowed edit writes nothing (the hook's hot path).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLEAR, openLanes } from '../../src/index.js';
import { event } from '../helpers/hook-event.js';
import { gitRepo, tmp } from '../helpers/env.js';

test('hook deny, commit, snapshot, restore and refusals are journaled once each; an allowed edit writes nothing', async () => {
  const repo = gitRepo();
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src', 'a.ts'), 'a\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'src'], { cwd: repo });
  const side = join(tmp('lanes-side-'), 'side');
  execFileSync('git', ['worktree', 'add', '-q', '-b', 'side', side], { cwd: repo });
  const store = join(tmp(), 'lanes.db');
  const admin = await openLanes({ store, cwd: repo, session: null, notice: false });
  const a = await admin.sessions.start({ pid: process.pid, ticket: 'T-A' });
  const lanesA = await openLanes({ store, cwd: repo, session: a.id, notice: false });
  await lanesA.claims.claim(['path:src/a.ts']);
  const mark = (await admin.journal.list({ order: 'desc', limit: 1 }))[0]!.seq;
  const kinds = async () => (await admin.journal.list({ afterSeq: mark })).map((e) => e.kind);

  // Another agent's session in its own worktree: the claimed file is denied, with the holder.
  const b = 'claude-code:bbbbbbbb-0000-4000-8000-000000000001';
  await admin.hook(event('session-start', b.slice(12), side, { source: 'startup' }));
  const before = (await admin.journal.list({ afterSeq: mark })).length;
  const allowed = await admin.hook(event('pre-edit', b.slice(12), side, { paths: [join(side, 'src', 'free.ts')] }));
  assert.equal(allowed.permission, 'allow');
  assert.equal((await admin.journal.list({ afterSeq: mark })).length, before, 'an allowed edit writes nothing');
  const denied = await admin.hook(event('pre-edit', b.slice(12), side, { paths: [join(side, 'src', 'a.ts')] }));
  assert.equal(denied.permission, 'deny');
  const [deny] = await admin.journal.list({ afterSeq: mark, kinds: ['hook.deny'] });
  assert.equal(deny?.session, b);
  assert.deepEqual(deny?.details['holders'], [a.id]);
  assert.equal(deny?.details['agent'], 'claude-code');

  // Commit, snapshot, restore by the library object of session A.
  writeFileSync(join(repo, 'src', 'b.ts'), 'b\n');
  const committed = await lanesA.commit(['src/b.ts'], 'add b');
  writeFileSync(join(repo, 'src', 'a.ts'), 'a changed\n');
  const snap = await lanesA.snapshots.snapshot({ why: 'before lunch' });
  assert.ok(snap.snapshot, 'a dirty worktree is saved in a ref');
  await lanesA.snapshots.restore(snap.snapshot.ref, join(tmp(), 'restored'));
  const [c] = await admin.journal.list({ afterSeq: mark, kinds: ['commit'] });
  assert.equal(c?.details['commit'], committed.commit);
  assert.equal(c?.ticket, 'T-A');
  const [s] = await admin.journal.list({ afterSeq: mark, kinds: ['snapshot'] });
  assert.equal(s?.subject, snap.snapshot.ref);
  assert.equal(s?.details['why'], 'before lunch');
  assert.equal((await admin.journal.list({ afterSeq: mark, kinds: ['restore'] }))[0]?.subject, snap.snapshot.ref);

  // Refusals that protect someone's work.
  await assert.rejects(
    lanesA.state.mutate(a.id, async (): Promise<typeof CLEAR> => {
      await lanesA.state.clear(a.id);
      return CLEAR;
    }),
    /E_CLEAR_IN_MUTATE|from inside a mutate/,
  );
  await assert.rejects(lanesA.claims.assertFenced('path:src/a.ts', 99), /stale/);
  // A handoff of A's copied where session a2 expects its own: the wrong writer, refused and journaled.
  const written = await lanesA.handoffs.put('meta.json', '{}');
  const a2 = await admin.sessions.start({ pid: process.pid });
  const lanesA2 = await openLanes({ store, cwd: repo, session: a2.id, notice: false });
  const mine = await lanesA2.handoffs.put('meta.json', '{"mine":1}');
  copyFileSync(written.path, mine.path);
  await assert.rejects(lanesA2.handoffs.get('meta.json'), /E_WRONG_OWNER|written by/);
  const [h] = await admin.journal.list({ afterSeq: mark, kinds: ['handoff'] });
  assert.equal(h?.session, a2.id);
  assert.equal(h?.details['code'], 'E_WRONG_OWNER');
  await lanesA2.close();
  const k = await kinds();
  assert.equal(k.filter((x) => x === 'hook.deny').length, 1);
  for (const want of ['commit', 'snapshot', 'restore', 'state.refuse', 'fence.refuse', 'handoff.refuse'])
    assert.ok(k.includes(want as never), `${want} in ${k.join(', ')}`);
  await lanesA.close();
  await admin.close();
});
