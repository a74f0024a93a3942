import { overlapLookup } from '../../core/path-overlap.js';
import { resourcesConflict } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import type { ClaimRecord } from '../types.js';

// What both backends read to find the claims that conflict with some resources: per wanted path,
// an IN list and (for a directory) one range; per (scope, kind) of other kinds, an IN list of names.
// Each backend turns these into its SQL; the rows are then filtered exactly and de-duplicated here.

export interface Lookup {
  scope: string;
  kind: string;
  names: string[];
  /** Names strictly between after and before (byte order). */
  range: { after: string; before: string } | null;
  /**
   * Every claim of (scope, kind): a case-folded path matches spellings no key range can list, so
   * a repository on a case-insensitive file system reads its path claims whole (few per repository).
   */
  all?: true;
}

export function lookupsFor(refs: ResourceRef[]): Lookup[] {
  const named = new Map<string, Lookup>();
  const out: Lookup[] = [];
  for (const r of refs) {
    if (r.kind === 'path' && r.fold) {
      out.push({ scope: r.scope, kind: 'path', names: [], range: null, all: true });
      continue;
    }
    // A file claim (an absolute path of this machine) overlaps as a path claim does.
    if (r.kind === 'path' || r.kind === 'file') {
      const l = overlapLookup(r.name);
      out.push({ scope: r.scope, kind: r.kind, names: l.exact, range: l.below });
      continue;
    }
    const key = `${r.scope}\0${r.kind}`;
    let l = named.get(key);
    if (!l) {
      l = { scope: r.scope, kind: r.kind, names: [], range: null };
      named.set(key, l);
      out.push(l);
    }
    if (!l.names.includes(r.name)) l.names.push(r.name);
  }
  return out;
}

/** The rows that really conflict with some wanted resource, each once, in (scope, kind, name) order. */
export function conflicting(refs: ResourceRef[], rows: ClaimRecord[]): ClaimRecord[] {
  const seen = new Map<string, ClaimRecord>();
  for (const c of rows) {
    const key = `${c.scope}\0${c.kind}\0${c.name}`;
    if (seen.has(key)) continue;
    if (refs.some((r) => resourcesConflict(r, c))) seen.set(key, c);
  }
  const key = (c: ClaimRecord) => [c.scope, c.kind, c.name];
  return [...seen.values()].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as string) < (y[i] as string) ? -1 : 1;
    return 0;
  });
}
