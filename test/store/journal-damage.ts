import { createRequire } from 'node:module';
import type * as Pg from 'pg';
import { rawSqlite } from '../helpers/sqlite.js';
import { PG_URL } from '../helpers/pg.js';

// Damage done to one journal row behind the store's back, as a manual fix, another version's
// writer or a failing disk would leave it (issue 46, item 2). Each backend's own SQL; a damage a
// backend cannot hold (PostgreSQL's JSONB takes no non-JSON text, a UTF8 database no invalid
// UTF-8, typed columns no wrong types) answers false.

export type Damage =
  'not-json' | 'json-null' | 'array' | 'wrong-types' | 'wrong-details' | 'huge-subject' | 'invalid-utf8';
export const DAMAGES: Damage[] = [
  'not-json',
  'json-null',
  'array',
  'wrong-types',
  'wrong-details',
  'huge-subject',
  'invalid-utf8',
];
export type DamageRow = (seq: number, how: Damage) => Promise<boolean>;

/** Fields of the wrong type for their kind (a session.end's released, a claim.refuse's heldBy). */
const WRONG_DETAILS = '{"released": 5, "heldBy": [null, 3], "channels": 7, "reason": {"a": [1]}}';
const TEN_MB = 10 * 1024 * 1024;

export function sqliteDamage(file: string): DamageRow {
  return async (seq, how) => {
    const db = rawSqlite(file);
    try {
      const set: Record<Damage, string> = {
        'not-json': `details = 'not json {'`,
        'json-null': `details = 'null'`,
        array: `details = '[1,2]'`,
        'wrong-types': `at = 'yesterday', session_id = 42, subject = x'00ff80', details = x'7b7d'`,
        'wrong-details': `details = '${WRONG_DETAILS}'`,
        'huge-subject': `subject = replace(hex(zeroblob(${TEN_MB / 2})), '0', 'x')`,
        'invalid-utf8': `subject = CAST(x'6869ff80fe' AS TEXT), details = CAST(x'7b2261223a2262ff227d' AS TEXT)`,
      };
      return db.prepare(`UPDATE journal SET ${set[how]} WHERE seq = ?`).run(seq).changes === 1;
    } finally {
      db.close();
    }
  };
}

export function pgDamage(schema: string): DamageRow {
  return async (seq, how) => {
    const set: Partial<Record<Damage, string>> = {
      'json-null': `details = 'null'::jsonb`,
      array: `details = '[1,2]'::jsonb`,
      'wrong-details': `details = '${WRONG_DETAILS}'::jsonb`,
      'huge-subject': `subject = repeat('x', ${TEN_MB})`,
    };
    if (!set[how]) return false;
    const pg = createRequire(import.meta.url)('pg') as typeof Pg;
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      return (await c.query(`UPDATE "${schema}".journal SET ${set[how]} WHERE seq = $1`, [seq])).rowCount === 1;
    } finally {
      await c.end();
    }
  };
}
