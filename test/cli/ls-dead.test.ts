// `lanes ls`'s default view over thousands of dead sessions (issue 48, item 5): the store counts
// them and chooses the few needing attention in its indexes; the rows and counts must be those of
// the rule (dead ones holding claims, or in a worktree with unsaved work no live session shares,
// the first 50 by creation; the others counted), whether a death was recorded before or is proven
// by this very listing.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { identityOf } from '../../src/core/process-identity.js';
import { openStore } from '../../src/store/open.js';
import type { SessionRecord } from '../../src/store/types.js';
import { gitRepo, lanes, lanesEnv, owner, tmp } from '../helpers/env.js';

test('ls with 3,000 dead sessions: the first 50 needing attention by creation, the rest counted, recorded or not', async () => {
  const env: Record<string, string> = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off', COLUMNS: '200' };
  env['LANES_STORE'] = join(env['LANES_HOME']!, 'lanes.db');
  const repo = gitRepo();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  const wts = tmp('lanes-wts-');
  const [dirty, clean] = [join(wts, 'dirty'), join(wts, 'clean')];
  git('worktree', 'add', '-q', '--detach', dirty);
  git('worktree', 'add', '-q', '--detach', clean);
  writeFileSync(join(dirty, 'wip.txt'), 'unsaved\n');
  writeFileSync(join(repo, 'wip.txt'), 'the live session works here\n'); // dirty, but shared with a live one
  const me = identityOf(process.pid)!;
  const store = await openStore(env['LANES_STORE']);
  const now = await store.now();
  const n = 3000;
  // Created out of id order; their owner is this process with another start time: provably dead.
  const sessions: SessionRecord[] = Array.from({ length: n }, (_, i) => {
    const worktree =
      i % 53 === 0 ? dirty : i % 41 === 0 ? clean : i % 37 === 0 ? repo : i % 2 ? join(wts, `gone${i}`) : null;
    return {
      ...{ label: null, agent: 'test', ticket: null, repo: join(repo, '.git'), command: null },
      id: `s-dead${String(i).padStart(5, '0')}`,
      worktree,
      cwd: worktree ?? repo,
      owner: { ...me, startTime: 'gone' },
      createdAt: now - 100_000 + ((i * 7919) % n),
      lastSeenAt: now,
      endedAt: i % 10 === 9 ? now : null,
      ...{ endReason: i % 10 === 9 ? 'done' : null, deadWhy: null, attention: null, terminal: null },
      ...{ conversation: null, conversationPid: null, died: null, setupState: null, envSlug: null },
      ...{ parent: null, task: null },
    };
  });
  const scope = `repo:${join(repo, '.git')}`;
  const claims = sessions
    .filter((x, i) => i % 43 === 0 && x.endedAt === null)
    .map((x) => ({ scope, kind: 'path', name: `${x.id}.ts`, sessionId: x.id, token: 1, acquiredAt: now }));
  await store.load(
    { sessions, claims, fences: claims.map((c) => ({ ...c, lastToken: 1 })), state: [], gates: [] },
    {
      replace: true,
    },
  );
  // Two in three recorded dead already (as earlier listings did); the others are proven by ls.
  const open = sessions.filter((x) => x.endedAt === null);
  const marks = open.filter((_, i) => i % 3 > 0).map((x) => ({ ...x, why: 'pid reused' }));
  for (let i = 0; i < marks.length; i += 500) await store.recordDead(marks.slice(i, i + 500));
  await store.close();
  const live = await owner(env);
  const started = await lanes(['start', '--label', 'live', '--pid', live.pid, '--json'], { env, cwd: repo });
  assert.equal(started.code, 0, started.stderr);
  const liveId = (JSON.parse(started.stdout) as { id: string }).id;

  const held = new Set(claims.map((c) => c.sessionId));
  const attention = open
    .filter((x) => held.has(x.id) || x.worktree === dirty)
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  assert.ok(attention.length > 50 && attention.some((x) => x.worktree === dirty && !held.has(x.id)));
  const expected = [liveId, ...attention.slice(0, 50).map((x) => x.id)].sort();
  const counts = [
    `${attention.length - 50} more dead session(s) holding claims or unsaved work not shown`,
    `${open.length - attention.length} dead session(s) without claims or unsaved work not shown`,
  ];
  for (const round of ['proving 1,000 deaths', 'all recorded']) {
    const r = await lanes(['ls'], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout.split('\n').map((l) => l.split(/\s+/)[0] ?? '');
    assert.deepEqual(rows.filter((id) => id.startsWith('s-')).sort(), expected, round);
    for (const line of counts) assert.ok(r.stdout.includes(line), `${round}: ${line}\n${r.stdout.slice(-400)}`);
  }
  await live.kill();
});
