import type { Lanes } from '../index.js';

// A teardown its lanes.toml was not allowed to run (issue 46) is said by the command that ended
// the session, never skipped silently: the session ended, its work was saved, and the command's
// exit code (6) tells a script that something is left to do.

export function blockedTeardownText(session: string, why: string | null): string {
  return `lanes: ${session} ended, but its [session] teardown was ${why ?? 'not run: its lanes.toml is not allowed'}\n`;
}

/** The why of a session's last teardown.fail when it was not allowed to run, else null. */
export async function blockedTeardownOf(lanes: Lanes, session: string): Promise<string | null> {
  const [last] = await lanes.journal.list({ session, kinds: ['teardown.fail'], order: 'desc', limit: 1 });
  return last && typeof last.details['blocked'] === 'string' ? String(last.details['why'] ?? '') : null;
}
