import type { Json } from '../state/state.js';
import type { SessionRecord } from '../../store/types.js';
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
  session: SessionRecord,
  next: (before: string[]) => string[] | null,
  /** The new list is the whole truth (the turn's end): the index is replaced, not added to. */
  whole: boolean,
): Promise<boolean> {
  let ok = true;
  let index: { paths: string[]; replace: boolean } | undefined;
  await ctx.mutateState(session.id, (cur) => {
    if (cur !== undefined && (cur === null || typeof cur !== 'object' || Array.isArray(cur))) {
      ok = false;
      return undefined;
    }
    const before = touchedOf(cur);
    const paths = next(before);
    if (paths === null) return undefined;
    const kept = paths.slice(-MAX_TOUCHED);
    // Replaced when the list is whole, or lost paths (cut at MAX_TOUCHED); else only the new ones are added.
    const had = new Set(before);
    const has = new Set(kept);
    const replace = whole || before.some((p) => !has.has(p));
    index = { paths: replace ? kept : kept.filter((p) => !had.has(p)), replace };
    return { ...(cur as Record<string, Json> | undefined), [TOUCHED_KEY]: kept };
  });
  // The index follows the state (the record): a write that fails costs a warning until the turn's
  // end re-indexes the whole list, never the edit.
  const change = index as { paths: string[]; replace: boolean } | undefined;
  if (change && session.repo)
    await ctx.indexTouched(session.id, session.repo, change.paths, change.replace).catch(() => undefined);
  return ok;
}

/** Replaces the session's touched list with what its own worktree says (end of turn). */
export function setTouched(ctx: HookContext, session: SessionRecord, paths: string[]): Promise<boolean> {
  return updateTouched(
    ctx,
    session,
    (before) => (before.length === paths.length && before.every((p, i) => p === paths[i]) ? null : paths),
    true,
  );
}

/** Adds paths to the session's touched list (after an edit). */
export function recordTouched(ctx: HookContext, session: SessionRecord, paths: string[]): Promise<boolean> {
  return updateTouched(
    ctx,
    session,
    (before) => {
      const add = paths.filter((p) => !before.includes(p));
      return add.length === 0 ? null : [...before, ...add];
    },
    false,
  );
}
