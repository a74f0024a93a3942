import type { Json } from '../state/state.js';
import type { SessionRecord } from '../../store/types.js';
import type { HookContext } from './context.js';

// Where a session's agent keeps its own record (Claude Code's transcript, Codex's rollout: the
// hooks' transcript_path), kept on the session (issue 50, item 1): what it spent is read from
// there (services/spend). Noted at session start and at each turn's end, written only when new
// (a /clear starts a new transcript; a resumed conversation goes on in its old one).

/** Session state key: the agent's record files, [{ agent, path }] (reserved for lanes). */
export const RECORDS_KEY = 'lanes:records';
/** A session that clears its conversation a hundred times keeps its last records. */
const MAX_RECORDS = 50;

export interface AgentRecordFile {
  agent: string;
  path: string;
}

export function recordsOf(state: Json | undefined): AgentRecordFile[] {
  if (!state || typeof state !== 'object' || Array.isArray(state)) return [];
  const r = (state as Record<string, Json>)[RECORDS_KEY];
  if (!Array.isArray(r)) return [];
  return r.filter(
    (e): e is { agent: string; path: string } =>
      !!e &&
      typeof e === 'object' &&
      !Array.isArray(e) &&
      typeof e['agent'] === 'string' &&
      typeof e['path'] === 'string',
  );
}

/** Adds the record file to the session's list (under its state gate) unless it is there; a state that is not an object is left alone. */
export async function noteRecord(ctx: HookContext, session: SessionRecord, agent: string, path: string): Promise<void> {
  await ctx.mutateState(session.id, (cur) => {
    if (cur !== undefined && (cur === null || typeof cur !== 'object' || Array.isArray(cur))) return undefined;
    const had = recordsOf(cur as Json | undefined);
    if (had.some((r) => r.path === path)) return undefined;
    const next = [...had, { agent, path }].slice(-MAX_RECORDS);
    return { ...(cur as Record<string, Json> | undefined), [RECORDS_KEY]: next as unknown as Json };
  });
}
