import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { uncheckedFile } from '../../core/unchecked-spool.js';
import type { UncheckedCall } from '../../core/unchecked-spool.js';
import type { LanesContext } from '../context.js';

// A hook that cannot reach the store fails open (the agent must not hang), but not in silence:
// the model and the person are told in the answer (commands/hook.ts), and the call is written
// here, in a file of this machine, to be journaled (`hook.unchecked`) by the next hook call that
// reaches the store. So the morning's report says which calls nobody checked.

/**
 * Journals what the spool holds, once: the file is renamed first (another hook flushing at the
 * same moment finds it gone), then each line becomes a `hook.unchecked` entry. One stat when empty.
 */
export async function flushUnchecked(ctx: LanesContext): Promise<number> {
  const file = uncheckedFile(ctx.env);
  if (!existsSync(file)) return 0;
  const taken = `${file}.${process.pid}`;
  try {
    renameSync(file, taken);
  } catch {
    return 0;
  }
  let n = 0;
  for (const line of readFileSync(taken, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let c: UncheckedCall;
    try {
      c = JSON.parse(line) as UncheckedCall;
    } catch {
      continue;
    }
    await ctx.journal.record({
      kind: 'hook.unchecked',
      subject: c.subject || c.event,
      session: c.session,
      details: { agent: c.agent, event: c.event, cwd: c.cwd, error: c.error, at: c.at },
    });
    n++;
  }
  rmSync(taken, { force: true });
  return n;
}
