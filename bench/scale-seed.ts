// bench/scale-seed: fills a store through the store API in one load (a dump), fast: sessions of a
// mix of live (owned by the benchmark's process), dead (this host and boot, the benchmark's pid
// with another start time: provably dead, "pid reused") and ended ones, and path claims spread
// over live and dead sessions. Run by bench/scale.mjs with tsx:
//   node --import tsx bench/scale-seed.ts STORE '{"live":9,"dead":4991,"ended":0,"claims":10000,...}'
import { identityOf } from '../src/core/process-identity.js';
import { openStore } from '../src/store/open.js';
import type { JournalEntry, JournalKind } from '../src/store/journal-types.js';
import type { ClaimRecord, SessionRecord } from '../src/store/types.js';

interface Spec {
  live: number;
  dead: number;
  ended: number;
  claims: number;
  /** The repository's id (git common dir) and worktree the sessions work in. */
  repo: string;
  worktree: string;
  /** The benchmark's pid: live sessions are its, dead ones name it with another start time. */
  ownerPid: number;
  /** Owners of the live sessions, round-robin, instead of ownerPid alone (a liveness proof reads each). */
  ownerPids?: number[];
  /** Directories of the repository the claims name (pkg0 … pkgN-1). */
  dirs: number;
  /** Journal entries over the last 12 hours (a night's mix: mostly grants and releases). */
  journal?: number;
  /** Paths each live session's agent edited (state `lanes:touched` and the index): pkgD/tI_K.ts. */
  touched?: number;
  /** Every `every`th dead session (the `every/2`th, …) works in its own worktree, DIR/<id> (bench/ls-dead.mjs). */
  ownWorktrees?: { dir: string; every: number };
  /** Record the dead sessions dead (store.recordDead), as the first listing after their deaths did. */
  recordDead?: boolean;
}

const [location, specText] = process.argv.slice(2);
if (!location || !specText) throw new Error('usage: scale-seed.ts STORE SPEC_JSON');
const spec = JSON.parse(specText) as Spec;
const me = identityOf(spec.ownerPid);
if (!me) throw new Error(`pid ${spec.ownerPid} is not running`);
const owners = (spec.ownerPids ?? [spec.ownerPid]).map((pid) => {
  const o = identityOf(pid);
  if (!o) throw new Error(`pid ${pid} is not running`);
  return o;
});
const store = await openStore(location);
const now = await store.now();
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const sessions: SessionRecord[] = [];
const own = (id: string, kind: string, i: number) =>
  kind === 'dead' && spec.ownWorktrees && i % spec.ownWorktrees.every === spec.ownWorktrees.every >> 1
    ? `${spec.ownWorktrees.dir}/${id}`
    : spec.worktree;
const add = (id: string, kind: 'live' | 'dead' | 'ended', i: number) =>
  sessions.push({
    id,
    label: null,
    agent: 'claude-code',
    ticket: `T-${i}`,
    repo: spec.repo,
    worktree: own(id, kind, i - spec.live),
    cwd: own(id, kind, i - spec.live),
    owner: kind === 'dead' ? { ...me, startTime: 'gone' } : kind === 'live' ? owners[i % owners.length]! : me,
    command: null,
    createdAt: now - 3_600_000 + i,
    lastSeenAt: now,
    endedAt: kind === 'ended' ? now : null,
    endReason: kind === 'ended' ? 'bench' : null,
    deadWhy: null,
    attention: null,
    terminal: null,
    conversation: null,
    conversationPid: null,
    died: null,
    setupState: null,
    envSlug: null,
    parent: null,
    task: null,
  });
// Live sessions are agent sessions (the hook acts as the first of them); the others plain ids.
for (let i = 0; i < spec.live; i++) add(`claude-code:${uuid(i + 1)}`, 'live', i);
for (let i = 0; i < spec.dead; i++) add(`s-dead${i}`, 'dead', spec.live + i);
for (let i = 0; i < spec.ended; i++) add(`s-ended${i}`, 'ended', spec.live + spec.dead + i);
// Claims: file paths of the repository, round-robin over the open sessions except the first live
// one (the hook's own session), so other live sessions hold some and the dead hold the rest.
const holders = sessions.filter((s) => s.endedAt === null).slice(1);
const claims: ClaimRecord[] = [];
for (let i = 0; i < spec.claims; i++) {
  const d = i % spec.dirs;
  const f = Math.floor(i / spec.dirs); // past the files on disk when claims outnumber them: names only
  claims.push({
    scope: `repo:${spec.repo}`,
    kind: 'path',
    name: `pkg${d}/f${f}.ts`,
    sessionId: holders[i % holders.length]!.id,
    token: 1,
    acquiredAt: now,
  });
}
// A night's journal: per 20 entries, 8 grants and 8 releases, a commit, a refusal, a hook deny and
// (every 100) a land, spread over the last 12 h and over every session.
const MIX = ['claim.grant', 'claim.release'] as const;
const journal: Omit<JournalEntry, 'seq'>[] = [];
for (let i = 0; i < (spec.journal ?? 0); i++) {
  const s = sessions[i % sessions.length]!;
  const k = i % 20;
  const kind: JournalKind =
    i % 100 === 99 ? 'land' : k === 17 ? 'commit' : k === 18 ? 'claim.refuse' : k === 19 ? 'hook.deny' : MIX[k % 2]!;
  journal.push({
    at: now - 12 * 3_600_000 + Math.floor((i * 12 * 3_600_000) / (spec.journal ?? 1)),
    session: s.id,
    repo: spec.repo,
    ticket: s.ticket,
    host: me.host,
    kind,
    subject: kind === 'land' ? 'main' : `path:pkg${i % spec.dirs}/f${i % 50}.ts`,
    details:
      kind === 'land'
        ? { branch: `refs/heads/lanes/${s.ticket}`, from: 'a'.repeat(40), to: 'b'.repeat(40), mode: 'ff', token: i }
        : kind === 'claim.refuse'
          ? {
              heldBy: [
                { resource: `path:pkg${i % spec.dirs}/`, session: sessions[(i + 1) % sessions.length]!.id, token: 1 },
              ],
            }
          : kind === 'hook.deny'
            ? { reason: 'claimed by another session' }
            : { token: i },
  });
}
const live = sessions.filter((x) => x.endedAt === null && x.owner.startTime !== 'gone');
const touchedOf = (i: number) =>
  Array.from({ length: spec.touched ?? 0 }, (_, k) => `pkg${(i + k) % spec.dirs}/t${i}_${k}.ts`);
const state = spec.touched
  ? live.map((x, i) => ({
      sessionId: x.id,
      value: JSON.stringify({ 'lanes:touched': touchedOf(i) }),
      version: 1,
      updatedAt: now,
    }))
  : [];
await store.load(
  { sessions, claims, fences: claims.map((c) => ({ ...c, lastToken: 1 })), state, gates: [], journal },
  { replace: true },
);
// The index follows the state, as the hooks keep it (not part of a dump: derived).
if (spec.touched) for (const [i, x] of live.entries()) await store.indexTouched(x.id, spec.repo, touchedOf(i), true);
// Through the store API, as a listing records the deaths it proves (their session.died entries too).
const dead = spec.recordDead ? sessions.filter((x) => x.endedAt === null && x.owner.startTime === 'gone') : [];
for (let i = 0; i < dead.length; i += 1000)
  await store.recordDead(
    dead.slice(i, i + 1000).map((x) => ({ id: x.id, lastSeenAt: x.lastSeenAt, owner: x.owner, why: 'pid reused' })),
  );
await store.close();
console.log(JSON.stringify({ sessions: sessions.length, claims: claims.length, journal: journal.length }));
