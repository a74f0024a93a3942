// The dashboard's picture (src/ui/fleet.ts) on each store, in this process against a real store and
// real owner processes: while nothing is written it reads the change mark and nothing else; a
// heartbeat (no journal entry) reaches the picture with one read of the store; an owner that exits
// is shown dead at the next judgement even when this host's process facts are read only now and
// then (as where reading them starts a `ps`): its pid found gone makes the proof due at once; a
// session that ends is shown ended, and once resumed, live and only once.
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { openLanes } from '../../src/index.js';
import type { Lanes } from '../../src/index.js';
import { Fleet } from '../../src/ui/fleet.js';
import type { FleetStats } from '../../src/ui/fleet.js';
import { redactor } from '../../src/ui/redact.js';
import type { FleetView } from '../../src/ui/view-types.js';
import { gitRepo, lanesEnv, owner, tmp } from '../helpers/env.js';
import { PGBOUNCER_URL, PG_SKIP, PG_URL, pgSchemaUrl } from '../helpers/pg.js';
import { needs } from '../helpers/needs.js';

const STORES: { name: string; skip: string | false; store: () => string }[] = [
  { name: 'SQLite', skip: false, store: () => join(tmp('lanes-fleet-'), 'lanes.db') },
  { name: 'PostgreSQL', skip: PG_SKIP, store: () => track(pgSchemaUrl(PG_URL)) },
  {
    name: 'PostgreSQL through PgBouncer',
    skip: PG_SKIP || needs('PgBouncer', !PGBOUNCER_URL && 'LANES_TEST_PGBOUNCER_URL not set'),
    store: () => track(pgSchemaUrl(PGBOUNCER_URL)),
  },
];

function track(s: { url: string; drop: () => Promise<void> }): string {
  after(s.drop);
  return s.url;
}

/** Waits (bounded) until `ok` holds, looking again every 20 ms. */
async function until<T>(what: string, ok: () => T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = ok();
    if (v) return v;
    assert.ok(Date.now() < deadline, `within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const { name, skip, store: makeStore } of STORES)
  test(
    `${name}: idle reads only the mark; a heartbeat, an exit, an end and a resume reach the picture`,
    { skip },
    async () => {
      const env = lanesEnv();
      const repo = gitRepo();
      const store = makeStore();
      const base = { store, env, notice: false as const };
      const open = (session: string | null) => openLanes({ ...base, cwd: repo, session });
      const lanes = await open(null);
      const owners = await Promise.all([owner(env), owner(env)]);
      const ids: string[] = [];
      for (const o of owners) ids.push((await lanes.sessions.start({ pid: Number(o.pid) })).id);
      // This host's facts are read at most every minute: an exit is found through its pid alone.
      const fleet = new Fleet(lanes, {
        base,
        redactor: redactor({}, []),
        pollMs: 20,
        fleetEveryMs: 100,
        livenessEveryMs: 100,
        proofEveryMs: 60_000,
      });
      let picture: FleetView | null = null;
      fleet.subscribe((event, json) => {
        if (event === 'fleet') picture = JSON.parse(json) as FleetView;
      });
      const others: Lanes[] = [];
      after(async () => {
        await fleet.close();
        for (const l of [lanes, ...others]) await l.close({ heartbeat: false });
      });
      await fleet.start();
      picture = JSON.parse(fleet.json()) as FleetView;
      const marks = async (n: number): Promise<FleetStats> => {
        const from = fleet.stats().marks;
        return until(`${n} reads of the change mark`, () => fleet.stats().marks >= from + n && fleet.stats());
      };
      // Settled: the reads that followed the start (git, conflicts) are over once nothing moves.
      const still = (a: FleetStats, b: FleetStats) =>
        a.storeReads === b.storeReads && a.gitReads === b.gitReads && a.publishes === b.publishes;
      let before = await marks(10);
      for (let next = await marks(10); !still(before, next); next = await marks(10)) before = next;
      const idle = await marks(30);
      assert.deepEqual(
        [idle.storeReads, idle.gitReads, idle.publishes],
        [before.storeReads, before.gitReads, before.publishes],
        'nothing written: no read of the store or of git, no picture',
      );
      assert.ok(idle.proofs > before.proofs, 'the live sessions judged again meanwhile');

      // A heartbeat: no journal entry, one read of the store, the picture shows it.
      const seq = async () => (await lanes.journal.list({ order: 'desc', limit: 1 }))[0]?.seq ?? 0;
      const entries = await seq();
      const first = ids[0]!;
      const seenAt = picture!.sessions.find((s) => s.id === first)!.lastSeenAt;
      const acting = await open(first);
      others.push(acting);
      await new Promise((r) => setTimeout(r, 5));
      assert.equal(await acting.heartbeat(), true);
      await until(
        'the heartbeat in the picture',
        () => picture!.sessions.find((s) => s.id === first)!.lastSeenAt > seenAt,
      );
      assert.equal(await seq(), entries, 'a heartbeat is no journal entry');
      assert.ok(fleet.stats().storeReads > idle.storeReads, 'read because the mark moved');

      // An owner exits: dead in the picture within a moment, though facts are read once a minute.
      await owners[1]!.kill();
      const shown = await until('the exited owner shown dead', () =>
        picture!.sessions.find((s) => s.id === ids[1] && s.state === 'dead'),
      );
      assert.match(shown.why, /has exited/);
      assert.equal(picture!.sessions.find((s) => s.id === first)!.state, 'live');

      // A session that ends is shown ended; attached again (an agent's resume), live and only once.
      const agent = { id: 'claude-code:fleet-back', agent: 'claude-code', cwd: repo, pid: Number(owners[0]!.pid) };
      await lanes.sessions.attach(agent);
      await until('the agent shown live', () => picture!.sessions.find((s) => s.id === agent.id && s.state === 'live'));
      await lanes.sessions.end(agent.id, { reason: 'for the test', forceLive: true });
      await until('the agent shown ended', () =>
        picture!.sessions.find((s) => s.id === agent.id && s.state === 'ended'),
      );
      await lanes.sessions.attach(agent);
      await until('the agent shown live again, once', () => {
        const rows = picture!.sessions.filter((s) => s.id === agent.id);
        return rows.length === 1 && rows[0]!.state === 'live';
      });
    },
  );
