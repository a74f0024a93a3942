// A run of the same failing tool call in an agent's record (issue 50, item 3: a runaway). Each
// agent's reader (claude-failures, codex-failures, gemini-failures) says when a call is asked (its
// id and signature: the tool's name and input) and when it is answered (failed or not); the streak
// is how many times in a row the last failing call failed with the same signature. A call that
// succeeds, or another failing call, ends it. Read in pieces like the usage
// (services/spend/record-reader.ts): the streak is kept between reads.

export interface FailStreak {
  /** Tool calls asked and not answered yet: [id, signature], the last few. */
  pending: [string, string][];
  /** Calls already answered (an agent that writes a record again must not count it twice). */
  done?: string[];
  /** The call failing now (`Bash {"command":"npm test"}`), or null. */
  call: string | null;
  count: number;
}

export const noStreak = (): FailStreak => ({ pending: [], done: [], call: null, count: 0 });

const KEEP = 64;
const SIGNATURE = 300;

export function copyStreak(s: FailStreak): FailStreak {
  return { pending: [...s.pending], done: [...(s.done ?? [])], call: s.call, count: s.count };
}

/** The signature of a call: `name {input as JSON}`, cut to a line's length. */
export function signature(name: unknown, input: unknown): string {
  const args = typeof input === 'string' ? input : JSON.stringify(input ?? {});
  return `${String(name)} ${args}`.slice(0, SIGNATURE);
}

export function asked(s: FailStreak, id: string, sig: string): void {
  if (s.done?.includes(id) || s.pending.some(([p]) => p === id)) return;
  s.pending.push([id, sig]);
  if (s.pending.length > KEEP) s.pending.shift();
}

/** The answer to call `id`; false when the call was not asked (or was answered already). */
export function answered(s: FailStreak, id: string, failed: boolean): boolean {
  const at = s.pending.findIndex(([p]) => p === id);
  if (at < 0) return false;
  const sig = s.pending[at]![1];
  s.pending.splice(at, 1);
  (s.done ??= []).push(id);
  if (s.done.length > KEEP) s.done.shift();
  if (!failed) {
    s.call = null;
    s.count = 0;
  } else if (s.call === sig) s.count++;
  else {
    s.call = sig;
    s.count = 1;
  }
  return true;
}
