// Child processes for `lanes demo` and bench/race (real processes, as the incidents had):
//   worker.js race MODE SHARED_DIR ROUNDS   one handoff writer/reader; prints a JSON tally
//   worker.js hold-state SESSION JSON        holds a session's state gate until "go" on stdin
// Both print "ready" (or "holding") and wait for a line on stdin, so the parent starts them together.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
// The library as the package exports it: dist/worker.js imports dist/index.js (scripts/build.mjs).
import { isLanesError, openLanes } from '../../index.js';

export type RaceMode = 'plain' | 'envelope' | 'lanes';

export interface RaceTally {
  mode: RaceMode;
  session: string;
  handoffs: number;
  /** Read back somebody else's data and did not notice. */
  silentWrong: number;
  /** Read back somebody else's (or a torn) file and was told so by an error. */
  reported: number;
  /** Plain mode only: a half-written file that did not even parse. */
  torn: number;
}

function nextLine(): Promise<void> {
  const rl = createInterface({ input: process.stdin });
  return new Promise((resolve) =>
    rl.once('line', () => {
      rl.close();
      process.stdin.destroy();
      resolve();
    }),
  );
}

async function race(mode: RaceMode, shared: string, rounds: number): Promise<RaceTally> {
  const setup = await openLanes({ notice: false, session: null });
  const { id } = await setup.sessions.start({ pid: process.pid, label: `race-${mode}` });
  await setup.close();
  const lanes = await openLanes({ notice: false, session: id });
  const tally: RaceTally = { mode, session: id, handoffs: 0, silentWrong: 0, reported: 0, torn: 0 };
  const file = join(shared, 'meta.json');
  process.stdout.write('ready\n');
  await nextLine();
  for (let seq = 0; seq < rounds; seq++) {
    const payload = JSON.stringify({ session: id, seq, note: 'handoff for the next step' });
    tally.handoffs++;
    try {
      let got: string;
      if (mode === 'plain') {
        // The incident: a fixed path, plain JSON, read back a moment later.
        writeFileSync(file, payload);
        got = readFileSync(file, 'utf8');
      } else if (mode === 'envelope') {
        // The same shared path, but through lanes' envelope: the reader checks the writer's identity.
        lanes.handoffs.putAt(shared, 'meta.json', payload, id);
        got = lanes.handoffs.getAt(shared, 'meta.json', id).payload.toString('utf8');
      } else {
        await lanes.handoffs.put('meta.json', payload);
        got = (await lanes.handoffs.get('meta.json')).payload.toString('utf8');
      }
      let owner: unknown;
      try {
        owner = (JSON.parse(got) as { session?: unknown }).session;
      } catch {
        tally.torn++;
        continue;
      }
      if (owner !== id) tally.silentWrong++;
    } catch (e) {
      if (isLanesError(e, 'E_WRONG_OWNER') || isLanesError(e, 'E_INTEGRITY') || isLanesError(e, 'E_NOT_FOUND'))
        tally.reported++;
      else throw e;
    }
  }
  await lanes.sessions.end(id, { reason: 'race finished' });
  await lanes.close();
  return tally;
}

async function holdState(session: string, value: string): Promise<void> {
  const lanes = await openLanes({ notice: false });
  await lanes.state.mutate(session, async () => {
    process.stdout.write(`holding ${process.pid}\n`);
    await nextLine();
    return JSON.parse(value) as never;
  });
  process.stdout.write('done\n');
  await lanes.close();
}

const [what, ...args] = process.argv.slice(2);
if (what === 'race') {
  const [mode, shared, rounds] = args;
  const tally = await race(mode as RaceMode, shared ?? '.', Number(rounds ?? 200));
  process.stdout.write(JSON.stringify(tally) + '\n');
} else if (what === 'hold-state') {
  await holdState(args[0] ?? '', args[1] ?? 'null');
} else {
  process.stderr.write('usage: worker.js race MODE DIR ROUNDS | hold-state SESSION JSON\n');
  process.exitCode = 2;
}
