import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** `.NAME.PID.RANDOM.tmp`: the temp file writeAtomic creates next to its target. */
const TEMP = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;
/** No atomic write takes this long; a temp this old is left over whoever made it. */
const MAX_AGE_MS = 60 * 60 * 1000;

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files of atomic writes that were interrupted (a killed writer leaves its temp
 * behind; the target itself is intact). A temp is stale when its writer is gone (the runtime
 * directory is this host's, so the pid in its name can be asked) or it is over an hour old. A
 * live writer's temp is never touched. Best effort: a failure here never fails the write.
 */
export function removeStaleTemps(dir: string, now = Date.now()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (!st.isFile() && !st.isSymbolicLink()) continue;
      if (Number(m[1]) === process.pid || (running(Number(m[1])) && now - st.mtimeMs < MAX_AGE_MS)) continue;
      unlinkSync(path);
      removed++;
    } catch {
      /* gone already, or not ours to remove */
    }
  }
  return removed;
}
