/** waiting: a permission prompt or a question; finished: the turn ended; denied: lanes denied a call this turn. */
export const ATTENTION_STATES = ['waiting', 'finished', 'denied'] as const;
export type AttentionState = (typeof ATTENTION_STATES)[number];

export interface Attention {
  state: AttentionState;
  /** When it was set (store clock). */
  at: number;
  /** The agent's words (its notification message, the error), or lanes' reason for a deny. */
  why: string | null;
}

/** The attention states the agent working again clears (denied stays until the turn's end replaces it). */
export const ACTIVITY_CLEARS: readonly AttentionState[] = ['waiting', 'finished'];

/** ACTIVITY_CLEARS as an SQL list (constants only: no user text reaches it). */
export const CLEARED_BY_ACTIVITY = `(${ACTIVITY_CLEARS.map((s) => `'${s}'`).join(', ')})`;
