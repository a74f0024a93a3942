import { join } from 'node:path';

// Codex files a rollout under its sessions directory by the local day it began
// (sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl), and lanes looks only from the day
// before a run began on. A test's rollout is filed by the clock, never under a written-in day, so
// the suite passes on any date.

const two = (n: number) => String(n).padStart(2, '0');

/** The day folder and file name Codex gives a rollout of conversation `id` begun at `at` (local time). */
export function codexRollout(sessions: string, id: string, at = new Date()): { day: string; name: string } {
  const [y, m, d] = [String(at.getFullYear()), two(at.getMonth() + 1), two(at.getDate())];
  const time = `${two(at.getHours())}-${two(at.getMinutes())}-${two(at.getSeconds())}`;
  return { day: join(sessions, y, m, d), name: `rollout-${y}-${m}-${d}T${time}-${id}.jsonl` };
}
