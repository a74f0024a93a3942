import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { openLanes } from '../../src/index.js';
import type { Lanes } from '../../src/index.js';
import { identityOf } from '../../src/core/process-identity.js';
import type { OwnerIdentity } from '../../src/core/process-identity.js';
import { openStore } from '../../src/store/open.js';
import { gitRepo, lanesEnv, tmp } from '../helpers/env.js';
import {
  Adopt,
  Claim,
  End,
  Fence,
  KillOwner,
  MAX_SESSIONS,
  RESOURCES,
  Release,
  Start,
  emptyModel,
} from './claims-model.js';
import type { Real } from './claims-model.js';
import { RUNS, params } from './runs.js';

// Model-based test of claims: random sequences of start / claim / release / kill owner / adopt /
// end / fence checks across up to four sessions, each run on a fresh SQLite store through the
// library (the store API only fabricates the death of an owner), each command compared with the
// reference model (claims-model.ts) and followed by a full comparison of the store with it.
//
// Runs: RUNS / 10 sequences of up to 40 commands (1,000 at the default; about 13 commands a run
// get past their preconditions). The 10,000 cases are counted in commands, not runs: every command
// costs a few store transactions and a full comparison of the store with the model; the test fails
// if fewer than RUNS commands were checked.
const MODEL_RUNS = Math.max(1, Math.ceil(RUNS / 10));

/** The identity of a process that ran and has exited: what a killed owner leaves in the store. */
async function goneOwner(): Promise<OwnerIdentity> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const identity = child.pid === undefined ? null : identityOf(child.pid);
  child.kill('SIGKILL');
  await exited;
  assert.ok(identity, 'the child was running when its identity was read');
  return identity;
}

const who = fc.nat(MAX_SESSIONS - 1);
const resources = fc.array(fc.constantFrom(...RESOURCES), { minLength: 1, maxLength: 3 });
const commands = fc.commands(
  [
    fc.constant(new Start()),
    fc.constant(new Start()),
    fc.tuple(who, resources).map(([w, r]) => new Claim(w, r)),
    fc.tuple(who, resources).map(([w, r]) => new Claim(w, r)),
    fc.tuple(who, resources).map(([w, r]) => new Claim(w, r)),
    fc.tuple(who, resources).map(([w, r]) => new Release(w, r)),
    who.map((w) => new KillOwner(w)),
    fc.tuple(who, who).map(([w, v]) => new Adopt(w, v)),
    who.map((w) => new End(w)),
    fc.tuple(fc.constantFrom(...RESOURCES), fc.nat(2)).map(([r, b]) => new Fence(r, b)),
  ],
  { maxCommands: 40, size: 'max' },
);

/** Resource names of run `n`, apart from every other run's in the one store. */
function namesOf(n: number): Pick<Real, 'real' | 'model'> {
  const tag = `r${n}`;
  return {
    real: (res) => (res.startsWith('path:') ? `path:${tag}/${res.slice(5)}` : `${res}-${tag}`),
    model: (res) => (res.startsWith('path:') ? `path:${res.slice(5 + tag.length + 1)}` : res.slice(0, -tag.length - 1)),
  };
}

test(
  'claims follow the reference model through random start/claim/release/kill/adopt/end sequences',
  { timeout: 10 * 60_000 },
  async (t) => {
    const repo = gitRepo();
    const home = tmp('lanes-model-');
    const env = lanesEnv(home);
    const file = join(home, 'lanes.db');
    // One store for all runs (a new one per run costs more than the run): each run names its
    // resources apart and ends its sessions when done, so no run sees another's claims.
    const open = (cwd: string, session: string | null) => openLanes({ store: file, cwd, env, notice: false, session });
    const lib = await open(repo, null);
    const starter = await open(home, null);
    const store = await openStore(file);
    after(async () => {
      await lib.close({ heartbeat: false });
      await starter.close({ heartbeat: false });
      await store.close();
    });
    const deadOwner = await goneOwner();
    const counter = { count: 0 };
    let run = 0;
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const acting = new Map<string, Lanes>();
        const real: Real = {
          lib,
          starter,
          store,
          ids: [],
          deadOwner,
          commands: counter,
          ...namesOf(run++),
          as: async (id) => acting.get(id) ?? acting.set(id, await open(repo, id)).get(id)!,
        };
        try {
          await fc.asyncModelRun(() => ({ model: emptyModel(), real }), cmds);
        } finally {
          for (const l of acting.values()) await l.close({ heartbeat: false });
          for (const id of real.ids) await store.endSession(id, 'end of the run');
        }
      }),
      params(MODEL_RUNS),
    );
    t.diagnostic(`${counter.count} commands checked in ${run} runs`);
    assert.ok(counter.count >= RUNS, `only ${counter.count} commands were checked; raise MODEL_RUNS`);
  },
);
