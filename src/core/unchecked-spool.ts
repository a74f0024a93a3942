import { appendFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { lanesHome } from './paths.js';
import { makeDirsSync } from './make-dirs.js';

// Where a hook writes down a call it could not check (the store unreachable): read back and
// journaled by services/hooks/unchecked.ts once the store answers.

export interface UncheckedCall {
  at: number;
  agent: string;
  event: string;
  session: string | null;
  cwd: string;
  /** The files of an edit, the command of a shell call. */
  subject: string;
  error: string;
}

/** Bounded: an outage of a whole night is counted, not a file that fills the disk. */
const MAX_SPOOL_BYTES = 1 << 20;

export const uncheckedFile = (env: Record<string, string | undefined>): string =>
  join(lanesHome(env), 'unchecked.jsonl');

/** Writes the call down (best effort: the agent's answer never waits on it). */
export function spoolUnchecked(env: Record<string, string | undefined>, call: UncheckedCall): void {
  try {
    const file = uncheckedFile(env);
    if (existsSync(file) && statSync(file).size > MAX_SPOOL_BYTES) return;
    makeDirsSync(lanesHome(env), 0o700);
    appendFileSync(file, `${JSON.stringify(call)}\n`, { mode: 0o600 });
  } catch {
    // a full or read-only disk: the answer already said lanes could not check the call
  }
}
