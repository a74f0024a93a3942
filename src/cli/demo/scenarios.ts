import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isLanesError } from '../../core/errors.js';
import type { Lanes } from '../../index.js';
import { LineChild, workerPath } from './child.js';
import type { RaceMode, RaceTally } from './worker.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface World {
  lanes: Lanes;
  env: NodeJS.ProcessEnv;
  dir: string;
  /** The demo's temporary repository: every child runs there, never in the user's cwd (a session records its worktree from its cwd). */
  repo: string;
  say: (line: string) => void;
}

async function raceOnce(world: World, mode: RaceMode, sessions: number, rounds: number): Promise<RaceTally[]> {
  const shared = join(world.dir, `shared-${mode}`);
  mkdirSync(shared, { recursive: true });
  const kids = Array.from(
    { length: sessions },
    () => new LineChild([workerPath(), 'race', mode, shared, String(rounds)], world.env, world.repo),
  );
  await Promise.all(kids.map((k) => k.line(/ready/)));
  kids.forEach((k) => k.send('go'));
  return Promise.all(kids.map(async (k) => JSON.parse((await k.line(/\{.*\}\n/))[0]) as RaceTally));
}

export async function handoffCrossTalk(world: World): Promise<Check[]> {
  world.say('1. Handoff cross-talk: two sessions write meta.json and read it back a moment later.');
  const checks: Check[] = [];
  for (const mode of ['plain', 'envelope', 'lanes'] as const) {
    const t = await raceOnce(world, mode, 2, 200);
    const sum = (k: keyof RaceTally) => t.reduce((s, x) => s + Number(x[k]), 0);
    const n = sum('handoffs');
    const label = {
      plain: 'shared fixed path, plain JSON (the incident)',
      envelope: "shared path, lanes' envelope",
      lanes: 'per-session handoffs (lanes)',
    }[mode];
    world.say(
      `   ${label.padEnd(46)} ${String(sum('silentWrong')).padStart(4)} silent wrong-owner reads, ${String(sum('reported')).padStart(4)} reported, ${sum('torn')} torn, of ${n}`,
    );
    if (mode === 'plain')
      checks.push({
        name: 'the incident reproduces without lanes',
        ok: true,
        detail: `${sum('silentWrong')} of ${n} reads returned the other session's data, silently`,
      });
    if (mode === 'envelope')
      checks.push({
        name: 'every wrong-owner read on a shared path is reported',
        ok: sum('silentWrong') === 0 && sum('torn') === 0,
        detail: `${sum('reported')} reported, ${sum('silentWrong')} silent`,
      });
    if (mode === 'lanes')
      checks.push({
        name: 'per-session handoffs: no wrong-owner read at all',
        ok: sum('silentWrong') === 0 && sum('reported') === 0,
        detail: `0 of ${n} expected, got ${sum('silentWrong') + sum('reported')}`,
      });
  }
  return checks;
}

export async function claimsAndFencing(world: World): Promise<Check[]> {
  world.say('3. Claims with fencing tokens: one owner per ticket and path, proven alive.');
  const checks: Check[] = [];
  const owner = new LineChild(['-e', 'console.log("ready"); setInterval(() => {}, 1000)'], world.env, world.repo);
  await owner.line(/ready/);
  const a = await world.lanes.sessions.start({ pid: owner.proc.pid ?? 0, label: 'agent-a', ticket: 'SHOP-1' });
  const b = await world.lanes.sessions.start({ pid: process.pid, label: 'agent-b', ticket: 'SHOP-2' });
  const [grant] = await world.lanes.claims.claim(['ticket:SHOP-1', 'path:src/billing/'], { session: a.id });
  world.say(`   agent-a claims ticket:SHOP-1 and path:src/billing/ (token ${grant?.token})`);
  try {
    await world.lanes.claims.claim(['path:src/billing/invoice.ts'], { session: b.id });
    checks.push({
      name: 'an overlapping claim of a live holder is refused',
      ok: false,
      detail: 'agent-b got the claim',
    });
  } catch (e) {
    const ok = isLanesError(e, 'E_CLAIM_HELD');
    world.say(
      // Who holds it, in lanes' own words up to the holder's process details (never cut mid-word).
      `   agent-b claims path:src/billing/invoice.ts -> refused (exit 3): ${(e as Error).message.split(', pid ')[0]}`,
    );
    checks.push({
      name: 'an overlapping claim of a live holder is refused (exit 3)',
      ok,
      detail: (e as Error).message,
    });
  }
  owner.proc.kill('SIGKILL');
  await owner.exited;
  const [taken] = await world.lanes.claims.claim(['ticket:SHOP-1'], { session: b.id });
  world.say(
    `   agent-a is SIGKILLed; agent-b takes ticket:SHOP-1 over: token ${taken?.token} (${taken?.takenOver?.why ?? 'no takeover?'})`,
  );
  checks.push({
    name: "a dead holder's claim is taken over with a higher token",
    ok: !!taken?.takenOver && taken.token > (grant?.token ?? 0),
    detail: `token ${grant?.token} -> ${taken?.token}`,
  });
  try {
    await world.lanes.claims.assertFenced('ticket:SHOP-1', grant?.token ?? 0);
    checks.push({ name: 'a stale fencing token is refused', ok: false, detail: 'accepted' });
  } catch (e) {
    world.say(`   agent-a's stale token ${grant?.token} is refused (exit 4): ${(e as Error).message}`);
    checks.push({
      name: 'a stale fencing token is refused (exit 4)',
      ok: isLanesError(e, 'E_FENCED'),
      detail: (e as Error).message,
    });
  }
  return checks;
}

export async function gatedState(world: World): Promise<Check[]> {
  world.say('4. Unsafe clear: a clear never races a locked write, and never runs inside one.');
  const checks: Check[] = [];
  const c = await world.lanes.sessions.start({ pid: process.pid, label: 'agent-c' });
  await world.lanes.state.mutate(c.id, () => ({ job: 'step 1' }));
  const holder = new LineChild([workerPath(), 'hold-state', c.id, '{"job":"step 2"}'], world.env, world.repo);
  await holder.line(/holding/);
  let released = false;
  let clearedBeforeRelease = false;
  const clearing = world.lanes.state.clear(c.id).then(() => {
    clearedBeforeRelease = !released;
  });
  await new Promise((r) => setTimeout(r, 50));
  released = true;
  holder.send('go');
  await holder.line(/done/);
  await clearing;
  const after = await world.lanes.state.get(c.id);
  world.say(
    `   another process holds agent-c's state mid-write; clear waits for it, then clears: state is now ${JSON.stringify(after ?? null)}`,
  );
  checks.push({
    name: 'clear waits for the locked write and the state stays cleared',
    ok: after === undefined && !clearedBeforeRelease,
    detail: JSON.stringify(after ?? null),
  });
  await world.lanes.state.mutate(c.id, () => ({ job: 'step 3' }));
  try {
    await world.lanes.state.mutate(c.id, async () => {
      await world.lanes.state.clear(c.id);
      return undefined;
    });
    checks.push({ name: 'a clear inside a mutate of the same session is refused', ok: false, detail: 'allowed' });
  } catch (e) {
    world.say(`   clear from inside mutate() -> refused: ${(e as Error).message}`);
    checks.push({
      name: 'a clear inside a mutate of the same session is refused',
      ok: isLanesError(e, 'E_CLEAR_IN_MUTATE'),
      detail: (e as Error).message,
    });
  }
  const killed = new LineChild([workerPath(), 'hold-state', c.id, '{"job":"half-written"}'], world.env, world.repo);
  await killed.line(/holding/);
  killed.proc.kill('SIGKILL');
  await killed.exited;
  const t0 = performance.now();
  const next = await world.lanes.state.mutate(c.id, (s) => s, { timeoutMs: 10_000 });
  const ms = performance.now() - t0;
  world.say(
    `   a holder SIGKILLed mid-write: the next writer got the gate in ${ms.toFixed(1)} ms; state ${JSON.stringify(next)}`,
  );
  checks.push({
    name: 'a SIGKILLed holder neither blocks nor leaves a half-written state',
    ok: ms < 1500 && JSON.stringify(next) === '{"job":"step 3"}',
    detail: `${ms.toFixed(1)} ms`,
  });
  return checks;
}
