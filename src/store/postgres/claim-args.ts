import { overlapLookup } from '../../core/path-overlap.js';
import type { ResourceRef } from '../../core/resource.js';
import type { PgConn } from './conn.js';

// The arguments of a claim that claims.ts builds on the client: the advisory locks' keys, the path
// lookups of lanes_claim, and the TEXT[] arguments of lanes_claim and lanes_release as array
// literals (pg sends a string as it is; an array it converts element by element through its
// generic value conversion, measured in bench/claims' client instructions per cycle).

/** The advisory locks a claim request takes (one per named resource, one per scope for path claims), sorted. */
export function lockKeys(conn: PgConn, wanted: ResourceRef[]): string[] {
  // Requests that could conflict take turns: a path conflicts with the paths inside it, so path
  // claims lock their whole scope. Sorted, so two requests never deadlock.
  const key = (w: ResourceRef) =>
    `lanes:claims:${conn.target.schema}:${w.scope}:${w.kind}${w.kind === 'path' || w.kind === 'file' ? '' : `:${w.name}`}`;
  return wanted.length === 1 ? [key(wanted[0]!)] : [...new Set(wanted.map(key))].sort();
}

/** No path wanted: nothing to look up (most claims; spread into a call's arguments, never changed). */
const NO_PATHS: readonly null[] = [null, null, null, null, null];

/**
 * The path lookups of lanes_claim (migration 8), as five arrays: per wanted path, the names that
 * can overlap it (scope, name) and, for a directory, the range below it (scope, after, before).
 */
export function pathLookups(wanted: ResourceRef[]): readonly (string[] | null)[] {
  if (!wanted.some((w) => w.kind === 'path')) return NO_PATHS;
  const nearScopes: string[] = [];
  const nearNames: string[] = [];
  const belowScopes: string[] = [];
  const after: string[] = [];
  const before: string[] = [];
  for (const w of wanted) {
    if (w.kind !== 'path') continue;
    const l = overlapLookup(w.name);
    for (const name of l.exact) {
      nearScopes.push(w.scope);
      nearNames.push(name);
    }
    if (l.below) {
      belowScopes.push(w.scope);
      after.push(l.below.after);
      before.push(l.below.before);
    }
  }
  // Null when there is nothing to look up: fewer bytes to send, and nothing for the server to read.
  const some = (a: string[]) => (a.length ? a : null);
  return [some(nearScopes), some(nearNames), some(belowScopes), some(after), some(before)];
}

/** Characters a quoted element of a PostgreSQL array literal must escape with a backslash. */
const ESCAPED = /["\\]/;
const ESCAPED_ALL = /["\\]/g;

/**
 * One element of a TEXT[] literal: double-quoted, with `"` and `\` backslash-escaped. Inside the
 * quotes nothing else is special to PostgreSQL's array input (commas, braces, whitespace, the word
 * NULL, an empty string, any non-ASCII character: test/store/postgres-array-literal).
 */
function quoted(v: string): string {
  return `"${ESCAPED.test(v) ? v.replace(ESCAPED_ALL, '\\$&') : v}"`;
}

/** `values` as a PostgreSQL array literal of TEXT. */
export function textArray(values: readonly string[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) out += (i ? ',' : '') + quoted(values[i]!);
  return `${out}}`;
}

/** The scopes, kinds and names of `refs` as three TEXT[] literals (p_scopes, p_kinds, p_names of lanes_claim and lanes_release). */
export function refArrays(refs: readonly ResourceRef[]): [string, string, string] {
  let scopes = '{';
  let kinds = '{';
  let names = '{';
  for (let i = 0; i < refs.length; i++) {
    const r = refs[i]!;
    const sep = i ? ',' : '';
    scopes += sep + quoted(r.scope);
    kinds += sep + quoted(r.kind);
    names += sep + quoted(r.name);
  }
  return [`${scopes}}`, `${kinds}}`, `${names}}`];
}
