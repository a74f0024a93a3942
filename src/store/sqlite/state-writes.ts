import { NOW } from './conn.js';
import type { SqliteConn } from './conn.js';
import type { StateChange } from '../types.js';

// What releasing a gate writes, shared by the gate (gates.ts) and its line (gate-line.ts).
// Module constants, not templates built per call: the statement cache is keyed by the text.

/** Frees a gate held under `token` (no row changed: the holder was taken over, it is fenced). */
export const FREE = `UPDATE gates SET pid = NULL, session_id = NULL, command = NULL WHERE name = ? AND token = ? AND pid IS NOT NULL`;

const DELETE_STATE = `DELETE FROM state WHERE session_id = ?`;
const UPSERT_STATE = `INSERT INTO state (session_id, value, version, updated_at) VALUES (?, ?, 1, ${NOW})
     ON CONFLICT (session_id) DO UPDATE SET value = excluded.value, version = state.version + 1, updated_at = excluded.updated_at`;

/** Writes a state change in the current transaction. */
export function writeState(conn: SqliteConn, stateOf: string, change: StateChange): void {
  if (change.kind === 'keep') return;
  if (change.kind === 'delete') conn.stmt(DELETE_STATE).run(stateOf);
  else conn.stmt(UPSERT_STATE).run(stateOf, change.value);
}
