import type { Store } from '../store/types.js';
import type { Json, StateService } from './state.js';

/** Session state key: the repository paths the session's agent edited (reserved for lanes). */
export const TOUCHED_KEY = 'lanes:touched';

/** Bounded so one runaway session cannot make every other session's hooks slow. */
const MAX_TOUCHED = 5000;

export function touchedOf(state: Json | undefined): string[] {
  if (!state || typeof state !== 'object' || Array.isArray(state)) return [];
  const t = (state as Record<string, Json>)[TOUCHED_KEY];
  return Array.isArray(t) ? t.filter((p): p is string => typeof p === 'string') : [];
}

/** The touched paths of several sessions, in one store read. */
export async function touchedOfSessions(store: Store, sessionIds: string[]): Promise<Map<string, string[]>> {
  const rows = await store.readStates(sessionIds);
  return new Map(rows.map((r) => [r.sessionId, touchedOf(JSON.parse(r.value) as Json)]));
}

/**
 * Replaces the session's touched list with what its own worktree says (end of turn). Under the
 * state gate, like every change of the session's state.
 */
export async function setTouched(state: StateService, sessionId: string, paths: string[]): Promise<boolean> {
  let ok = true;
  await state.mutate(sessionId, (cur) => {
    if (cur !== undefined && (cur === null || typeof cur !== 'object' || Array.isArray(cur))) {
      ok = false;
      return undefined;
    }
    const before = touchedOf(cur);
    if (before.length === paths.length && before.every((p, i) => p === paths[i])) return undefined;
    return { ...(cur as Record<string, Json> | undefined), [TOUCHED_KEY]: paths.slice(-MAX_TOUCHED) };
  });
  return ok;
}

/** Adds paths to the session's touched list under its state gate. False when its state is not an object. */
export async function recordTouched(state: StateService, sessionId: string, paths: string[]): Promise<boolean> {
  let ok = true;
  await state.mutate(sessionId, (cur) => {
    if (cur !== undefined && (cur === null || typeof cur !== 'object' || Array.isArray(cur))) {
      ok = false;
      return undefined;
    }
    const before = touchedOf(cur);
    const add = paths.filter((p) => !before.includes(p));
    if (add.length === 0) return undefined;
    return { ...(cur as Record<string, Json> | undefined), [TOUCHED_KEY]: [...before, ...add].slice(-MAX_TOUCHED) };
  });
  return ok;
}
