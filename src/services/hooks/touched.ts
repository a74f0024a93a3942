import type { Json } from '../state/state.js';
import type { HookContext } from './context.js';

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
export async function touchedOfSessions(ctx: HookContext, sessionIds: string[]): Promise<Map<string, string[]>> {
  const rows = await ctx.readStates(sessionIds);
  return new Map(rows.map((r) => [r.sessionId, touchedOf(JSON.parse(r.value) as Json)]));
}

/**
 * Changes the session's touched list under its state gate, like every change of the session's
 * state; `next` returns the new list, or null for no change. False when the state is not an object.
 */
async function updateTouched(
  ctx: HookContext,
  sessionId: string,
  next: (before: string[]) => string[] | null,
): Promise<boolean> {
  let ok = true;
  await ctx.mutateState(sessionId, (cur) => {
    if (cur !== undefined && (cur === null || typeof cur !== 'object' || Array.isArray(cur))) {
      ok = false;
      return undefined;
    }
    const paths = next(touchedOf(cur));
    return paths === null
      ? undefined
      : { ...(cur as Record<string, Json> | undefined), [TOUCHED_KEY]: paths.slice(-MAX_TOUCHED) };
  });
  return ok;
}

/** Replaces the session's touched list with what its own worktree says (end of turn). */
export function setTouched(ctx: HookContext, sessionId: string, paths: string[]): Promise<boolean> {
  return updateTouched(ctx, sessionId, (before) =>
    before.length === paths.length && before.every((p, i) => p === paths[i]) ? null : paths,
  );
}

/** Adds paths to the session's touched list (after an edit). */
export function recordTouched(ctx: HookContext, sessionId: string, paths: string[]): Promise<boolean> {
  return updateTouched(ctx, sessionId, (before) => {
    const add = paths.filter((p) => !before.includes(p));
    return add.length === 0 ? null : [...before, ...add];
  });
}
