import { join } from 'node:path';
import { openLanes } from '../../src/index.js';
import { lanesEnv, tmp } from './env.js';

/** A fresh SQLite store with one session of this process: the state tests' world. */
export async function stateWorld() {
  const home = tmp();
  const env = lanesEnv(home);
  const lib = await openLanes({ store: join(home, 'lanes.db'), env, notice: false, session: null });
  const session = (await lib.sessions.start({ pid: process.pid, label: 'state-test' })).id;
  return { env, lib, session, home };
}
