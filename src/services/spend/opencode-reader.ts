import { existsSync } from 'node:fs';
import { load } from '../../core/builtins.js';
import { answered, asked, noStreak, signature } from '../../core/fail-streak.js';
import { addTokens, count, noTokens } from '../../core/usage.js';
import type { Tokens, Usage } from '../../core/usage.js';

// OpenCode's own record (1.18.33): one SQLite database for every session ($OPENCODE_DB, else
// $XDG_DATA_HOME/opencode/opencode.db), read only. Its `session` row keeps OpenCode's running
// totals (tokens_input — what was not read from a cache —, tokens_output, tokens_reasoning,
// tokens_cache_read, tokens_cache_write; its `model` as JSON), added to as each step finishes:
// one read by primary key per look, never the conversation. A subagent is a session of its own
// (parent_id): its tokens are the session's. Tool calls are `part` rows of type tool, rewritten
// in place until their state is completed or error (a shell command exiting non-zero is
// `completed` with metadata.exit). The session's record is named `DB#SESSION_ID`
// (agents/opencode/adapter.ts).

interface Db {
  exec(sql: string): void;
  prepare(sql: string): { all(...args: unknown[]): Record<string, unknown>[] };
  close(): void;
}

const TREE = `WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE id = ?
  UNION ALL SELECT s.id FROM session s JOIN tree t ON s.parent_id = t.id)`;

/** What the record says (record-reader.ts's RecordReading). */
export type OpencodeReading = Usage & { failing: { call: string; count: number } | null };

export function readOpencode(record: string): OpencodeReading | null {
  const at = record.lastIndexOf('#');
  if (at <= 0) return null;
  const file = record.slice(0, at);
  const id = record.slice(at + 1);
  if (!existsSync(file)) return null;
  const { DatabaseSync } = load('node:sqlite') as { DatabaseSync: new (f: string, o: object) => Db };
  let db: Db;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch {
    return null;
  }
  try {
    db.exec('PRAGMA busy_timeout = 1000');
    const rows = db
      .prepare(
        `${TREE} SELECT s.id, s.model, s.tokens_input, s.tokens_output, s.tokens_reasoning,
           s.tokens_cache_read, s.tokens_cache_write FROM session s JOIN tree USING (id)`,
      )
      .all(id);
    if (!rows.length) return null;
    const tokens: Tokens = noTokens();
    const byModel: Record<string, Tokens> = {};
    for (const r of rows) {
      const t: Tokens = {
        input: count(r['tokens_input']),
        output: count(r['tokens_output']) + count(r['tokens_reasoning']),
        cacheRead: count(r['tokens_cache_read']),
        cacheWrite: count(r['tokens_cache_write']),
      };
      const model = modelOf(r['model']);
      addTokens(tokens, t);
      addTokens((byModel[model] ??= noTokens()), t);
    }
    const parts = db
      .prepare(
        `${TREE} SELECT p.id, json_extract(p.data, '$.tool') AS tool, json_extract(p.data, '$.state.status') AS status,
           json_extract(p.data, '$.state.input') AS input, json_extract(p.data, '$.state.metadata.exit') AS exit
         FROM part p WHERE p.session_id IN (SELECT id FROM tree) AND json_extract(p.data, '$.type') = 'tool'
         ORDER BY p.time_created, p.id`,
      )
      .all(id);
    const fails = noStreak();
    for (const p of parts) {
      const pid = String(p['id']);
      asked(fails, pid, signature(p['tool'], parseJson(p['input'])));
      if (p['status'] === 'completed' || p['status'] === 'error')
        answered(fails, pid, p['status'] === 'error' || (typeof p['exit'] === 'number' && p['exit'] !== 0));
    }
    return {
      ...tokens,
      byModel,
      toolCalls: parts.length,
      failing: fails.call ? { call: fails.call, count: fails.count } : null,
    };
  } catch {
    // Not the schema this was written against (an OpenCode that changed it): not measured.
    return null;
  } finally {
    db.close();
  }
}

function modelOf(v: unknown): string {
  try {
    const m = JSON.parse(String(v)) as { id?: unknown };
    return typeof m?.id === 'string' ? m.id : 'unknown';
  } catch {
    return 'unknown';
  }
}

function parseJson(v: unknown): unknown {
  try {
    return typeof v === 'string' ? JSON.parse(v) : v;
  } catch {
    return v;
  }
}
