// `lanes report` for the page's Tonight panel, computed once per change of the fleet: the report
// reads the night's journal and every dead session's worktree and snapshots (on a store of 100,000
// entries and 400 dead sessions, ~0.5 s of CPU and a hundred git processes), and every page asks
// for it when it opens and after each change. Pages asking while nothing changed get the same
// answer (for at most a minute: the night's window moves on), and asks that meet share one run.
const KEEP = 8;

export function reportCache(
  compute: (sinceMs: number) => Promise<string>,
  /** Differs once anything the report reads may have changed (the fleet's version, the journal). */
  generation: () => string,
  ttlMs = 60_000,
): (sinceMs: number) => Promise<string> {
  const cache = new Map<number, { gen: string; at: number; json: Promise<string> }>();
  return (sinceMs) => {
    const gen = generation();
    const hit = cache.get(sinceMs);
    if (hit && hit.gen === gen && Date.now() - hit.at < ttlMs) return hit.json;
    const entry = { gen, at: Date.now(), json: compute(sinceMs) };
    cache.delete(sinceMs);
    cache.set(sinceMs, entry);
    if (cache.size > KEEP) cache.delete(cache.keys().next().value as number);
    // A failed run is not kept: the next ask runs again.
    entry.json.catch(() => {
      if (cache.get(sinceMs) === entry) cache.delete(sinceMs);
    });
    return entry.json;
  };
}
