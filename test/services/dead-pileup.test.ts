import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openLanes } from '../../src/index.js';
import type { Lanes } from '../../src/index.js';
import { event } from '../helpers/hook-event.js';
import { bootId, hostId } from '../../src/core/process-identity.js';
import { openStore } from '../../src/store/open.js';
import { gitRepo, tmp } from '../helpers/env.js';
import { PG_SKIP, PG_URL, pgSchemaUrl } from '../helpers/pg.js';

// Thousands of sessions whose owners are gone but which never ended (agents killed or crashed),
// some holding claims on the very paths being edited, must not change a single hook decision: the
// dead are judged once, recorded, and from then on never read by the hot path.
const DEAD = 2000;
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const [A, B, C] = [uuid(1), uuid(2), uuid(3)];

function world(): { repo: string; side: string } {
  const repo = gitRepo();
  mkdirSync(join(repo, 'src', 'billing'), { recursive: true });
  writeFileSync(join(repo, 'src', 'billing', 'seat.ts'), 'export const seat = 1\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'src'], { cwd: repo });
  const side = join(tmp('lanes-side-'), 'side');
  execFileSync('git', ['worktree', 'add', '-q', '-b', 'side', side], { cwd: repo });
  return { repo, side };
}

async function decisions(lanes: Lanes, repo: string, side: string): Promise<unknown[]> {
  const f = (p: string) => join(repo, p);
  return [
    await lanes.hook(event('pre-edit', B, side, { paths: [f('src/billing/seat.ts')] })), // A's claim: deny
    await lanes.hook(event('pre-edit', B, side, { paths: [f('src/dead/f7.ts')] })), // only the dead hold it
    await lanes.hook(event('pre-edit', B, side, { paths: [f('src/dead/')] })), // above the dead claims
    await lanes.hook(event('pre-edit', B, side, { paths: [f('src/free.ts')] })),
    await lanes.hook(event('pre-shell', B, side, { command: 'git commit -m x' })), // C shares side: deny
    await lanes.hook(event('pre-shell', A, repo, { command: 'git commit -m x' })), // only the dead share repo
    (await lanes.hook(event('session-start', A, repo, { source: 'resume' }))).context,
  ];
}

function pileUp(name: string, location: () => Promise<{ store: string; drop: () => Promise<void> }>): void {
  it(`${DEAD} dead sessions holding claims change no hook decision (${name})`, async () => {
    const { repo, side } = world();
    const { store: where, drop } = await location();
    const lanes = await openLanes({ store: where, cwd: repo, session: null, notice: false });
    try {
      for (const [id, cwd] of [
        [A, repo],
        [B, side],
        [C, side],
      ] as const)
        await lanes.sessions.attach({ id: `claude-code:${id}`, agent: 'claude-code', cwd, pid: process.pid });
      await lanes.claims.claim(['path:src/billing/'], { session: `claude-code:${A}` });
      const before = await decisions(lanes, repo, side);
      assert.equal((before[0] as { permission: string }).permission, 'deny');
      assert.equal((before[4] as { permission: string }).permission, 'deny');

      // The pile: written straight through the store API, owners on this host and boot whose pid
      // now belongs to another process (this one, with another start time): provably dead.
      const store = await openStore(where);
      const gone = { host: hostId(), bootId: bootId(), pid: process.pid, startTime: 'long gone' };
      const repoId = (await lanes.sessions.get(`claude-code:${A}`)).repo as string;
      const allLive = (owners: readonly unknown[]) => owners.map(() => ({ live: true, why: '' }));
      const add = async (i: number) => {
        const id = `s-dead${i}`;
        const cwd = i % 2 ? repo : side;
        const s = {
          id,
          label: null,
          agent: 'x',
          ticket: null,
          repo: repoId,
          worktree: cwd,
          cwd,
          owner: gone,
          command: null,
        };
        await store.insertSession(s);
        if (i < 50)
          await store.acquireClaims(
            id,
            [{ scope: `repo:${repoId}`, kind: 'path', name: `src/dead/f${i}.ts` }],
            allLive,
          );
      };
      // A few at a time: a team store's round trips overlap.
      for (let i = 0; i < DEAD; i += 20) await Promise.all(Array.from({ length: 20 }, (_, k) => add(i + k)));
      await store.close();

      const first = await decisions(lanes, repo, side); // judges the pile once, and records it
      const open = await openStore(where);
      const unproven = await open.listSessions({ includeEnded: false, includeDead: false });
      await open.close();
      assert.deepEqual(unproven.map((s) => s.id).sort(), [A, B, C].map((id) => `claude-code:${id}`).sort());
      const after = await decisions(lanes, repo, side);
      assert.deepEqual(first, before);
      assert.deepEqual(after, before);
    } finally {
      await lanes.close({ heartbeat: false });
      await drop();
    }
  });
}

describe('a pile of dead sessions', () => {
  pileUp('SQLite', async () => ({ store: join(tmp('lanes-pile-'), 'lanes.db'), drop: async () => undefined }));
  if (PG_URL)
    pileUp('PostgreSQL', async () => {
      const { url, drop } = pgSchemaUrl();
      return { store: url, drop };
    });
  else it('(PostgreSQL)', { skip: PG_SKIP }, () => undefined);
});
