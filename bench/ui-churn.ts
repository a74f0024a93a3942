// bench/ui-churn: a busy fleet's writes, through the store API, for bench/ui-idle.mjs --busy: the
// live sessions' heartbeats (round-robin, `beats` a second: each agent's lanes calls refresh its
// lease at most every 5 s) and claim grants and releases (`claims` a second, each two journal
// entries). Runs `seconds`, then prints what it wrote.
//   node --import tsx bench/ui-churn.ts STORE '{"sessions":["…"],"beats":20,"claims":2,"seconds":20}'
// With `starts` (bench/ui-memory.mjs), the fleet also turns over, its size kept: `starts` sessions a
// second are started (each owned by a process of its own, a `sleep`, and holding `hold` claims, as
// `lanes start --ticket` does in one transaction; printed as `started ID TICKET`), and for each one
// an older session leaves, by turns: the oldest live one ends (its claims released; one this started
// has its owner exit after), or the oldest this started dies (its owner killed: the dashboard proves
// the death; printed as `died ID TICKET`) and the oldest dead one (of `dead`, then those killed) is
// ended, as `lanes gc` ends the dead. Heartbeats and claims go to the live sessions of the moment.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { identityOf } from '../src/core/process-identity.js';
import type { ResourceRef } from '../src/core/resource.js';
import { openStore } from '../src/store/open.js';
import type { OwnerJudge } from '../src/store/types.js';

interface Spec {
  sessions: string[];
  beats: number;
  claims: number;
  seconds: number;
  /** Sessions started a second (default 0: the fleet does not turn over). */
  starts?: number;
  /** Claims each started session takes as it starts (default 2). */
  hold?: number;
  /** The open sessions already dead, ended oldest first as sessions die (default none). */
  dead?: string[];
  /** The repository's id (git common dir) and the worktree the started sessions work in. */
  repo?: string;
  worktree?: string;
}

const [location, specText] = process.argv.slice(2);
if (!location || !specText) throw new Error('usage: ui-churn.ts STORE SPEC_JSON');
const spec = JSON.parse(specText) as Spec;
const store = await openStore(location);
console.log('go');
const judge: OwnerJudge = (owners) => owners.map(() => ({ live: true, why: '' }));
const repo = 'repo:/bench/.git';
const end = Date.now() + spec.seconds * 1000;
const live = [...spec.sessions];
const started: { id: string; ticket: string; proc: ChildProcess }[] = [];
const dead = [...(spec.dead ?? [])];
const n = { beats: 0, claims: 0, starts: 0, ends: 0, deaths: 0, gcs: 0, errors: 0 };
// Stopped early: the owners it started go with it (each would otherwise sleep on for `seconds` + 10 min).
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    for (const s of started) s.proc.kill('SIGKILL');
    process.exit(1);
  });
const every = (perSecond: number, fn: () => Promise<unknown>) =>
  perSecond > 0
    ? (async () => {
        for (let next = Date.now(); Date.now() < end;) {
          // A session that ended meanwhile (the fleet turns over) refuses: counted, not fatal.
          await fn().catch(() => n.errors++);
          next += 1000 / perSecond;
          await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
        }
      })()
    : Promise.resolve();

async function turnOver(): Promise<void> {
  const k = n.starts++;
  const proc = spawn('sleep', [String(spec.seconds + 600)], { stdio: 'ignore' });
  const owner = identityOf(proc.pid!);
  if (!owner) throw new Error(`sleep ${proc.pid} has no identity`);
  const id = `claude-code:00000000-0000-4000-9000-${String(k).padStart(12, '0')}`;
  const ticket = `MEMCHURN-${String(k).padStart(6, '0')}`;
  const refs: ResourceRef[] = Array.from({ length: spec.hold ?? 2 }, (_, j) => ({
    scope: `repo:${spec.repo}`,
    kind: 'path',
    name: `pkg${(k + j) % 25}/m${k}_${j}.ts`,
  }));
  const wt = spec.worktree ?? '/';
  const s = { id, label: null, agent: 'claude-code', ticket, repo: spec.repo ?? null, worktree: wt, cwd: wt, owner };
  const r = await store.insertSessionClaiming({ ...s, command: null }, refs, judge);
  if (!r.ok) proc.kill('SIGKILL');
  if (!r.ok) throw new Error(`${id}: its claims were refused`);
  live.push(id);
  started.push({ id, ticket, proc });
  console.log(`started ${id} ${ticket}`);
  if (k % 2 === 0) {
    const gone = live.shift()!;
    await store.endSession(gone, 'bench');
    n.ends++;
    const i = started.findIndex((x) => x.id === gone);
    if (i >= 0) started.splice(i, 1)[0]!.proc.kill('SIGKILL');
  } else if (started.length > 1) {
    const victim = started.shift()!;
    victim.proc.kill('SIGKILL');
    live.splice(live.indexOf(victim.id), 1);
    dead.push(victim.id);
    n.deaths++;
    console.log(`died ${victim.id} ${victim.ticket}`);
    const gc = dead.shift()!;
    await store.endSession(gc, 'gc: dead');
    n.gcs++;
  }
}

await Promise.all([
  every(spec.beats, async () => {
    await store.touchSession(live[n.beats++ % live.length]!);
  }),
  every(spec.claims, async () => {
    const who = live[n.claims % live.length]!;
    const ref = { scope: repo, kind: 'path', name: `churn/${n.claims++}.ts` };
    await store.acquireClaims(who, [ref], judge);
    await store.releaseClaims(who, [ref]);
  }),
  every(spec.starts ?? 0, turnOver),
]);
for (const s of started) s.proc.kill('SIGKILL');
await store.close();
console.log(JSON.stringify(n));
