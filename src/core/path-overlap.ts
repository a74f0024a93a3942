import { pathsOverlap } from './resource.js';

/**
 * Which stored path claims could overlap the path claim `name`, as an index can find them: two path
 * claims overlap only when one is a prefix of the other (resource.ts, pathsOverlap), so the
 * candidates are the name itself with and without its trailing `/`, every directory above it, and,
 * for a directory, the names below it: one range of the byte order ('/' + 1 is '0').
 * Stores query exactly these (an IN list and one range scan), never every claim of the scope.
 */
export interface OverlapLookup {
  /** Names to look up exactly. */
  exact: string[];
  /** Names strictly between these two (byte order), or null for a file. */
  below: { after: string; before: string } | null;
}

export function overlapLookup(name: string): OverlapLookup {
  const bare = name.endsWith('/') ? name.slice(0, -1) : name;
  const exact = new Set([bare, `${bare}/`]);
  for (let i = name.indexOf('/'); i >= 0 && i < bare.length; i = name.indexOf('/', i + 1))
    exact.add(name.slice(0, i + 1));
  return {
    exact: [...exact],
    below: name.endsWith('/') ? { after: name, before: `${bare}0` } : null,
  };
}

/** Keeps the rows a lookup found that really overlap (a lookup may over-select, never under-select). */
export function overlapping<T extends { name: string }>(name: string, rows: T[]): T[] {
  return rows.filter((r) => pathsOverlap(name, r.name));
}
