import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type * as Pg from 'pg';
import { refArrays, textArray } from '../../src/store/postgres/claim-args.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { PG_SKIP, PG_URL, pgSchemaUrl } from '../helpers/pg.js';
import { judge, session } from './fixtures.js';

// claims.ts sends lanes_claim's and lanes_release's TEXT[] arguments as array literals it writes
// itself (claim-args.ts); a name the server reads back differently would claim another resource.
// Each value is read back by a real server exactly as written.

/** Everything PostgreSQL's array input treats specially outside (or inside) double quotes. */
const AWKWARD = [
  'plain',
  'a,b',
  '{braces}',
  '}',
  '{',
  '"quoted"',
  '"',
  'back\\slash',
  '\\',
  '\\"',
  'a"b\\c"d\\\\',
  'NULL',
  'null',
  '',
  ' ',
  '  lead and trail  ',
  'tab\there',
  'new\nline',
  'ünïcödé ☃ 𝄞 日本',
  "single'quote",
  'semi;colon',
  '$1',
];

async function client(): Promise<Pg.Client> {
  const pg = createRequire(import.meta.url)('pg') as typeof Pg;
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  return c;
}

test('a TEXT[] literal is read back by the server as the values written', { skip: PG_SKIP }, async () => {
  const c = await client();
  try {
    const read = async (literal: string) =>
      (await c.query<{ a: string[] }>('SELECT $1::text[] AS a', [literal])).rows[0]?.a;
    for (const v of AWKWARD) assert.deepEqual(await read(textArray([v])), [v], JSON.stringify(v));
    assert.deepEqual(await read(textArray(AWKWARD)), AWKWARD);
    assert.deepEqual(await read(textArray([])), []);
    // Element count as the server sees it (a comma or brace taken as syntax would change it).
    const n = (await c.query<{ n: number }>('SELECT cardinality($1::text[]) AS n', [textArray(AWKWARD)])).rows[0]?.n;
    assert.equal(n, AWKWARD.length);
  } finally {
    await c.end();
  }
});

test('refArrays: three literals of the same length, in the refs order', { skip: PG_SKIP }, async () => {
  const refs = AWKWARD.map((name, i) => ({ scope: `host:h${i % 3}`, kind: i % 2 ? 'lock' : 'port', name }));
  const c = await client();
  try {
    const [scopes, kinds, names] = refArrays(refs);
    const { rows } = await c.query<{ s: string[]; k: string[]; n: string[] }>(
      'SELECT $1::text[] AS s, $2::text[] AS k, $3::text[] AS n',
      [scopes, kinds, names],
    );
    assert.deepEqual(rows[0], { s: refs.map((r) => r.scope), k: refs.map((r) => r.kind), n: AWKWARD });
  } finally {
    await c.end();
  }
});

test('claims named awkwardly are granted, listed and released by their exact names', { skip: PG_SKIP }, async () => {
  const { url, drop } = pgSchemaUrl();
  const store = await PostgresStore.open(url);
  try {
    await store.insertSession(session('s1'));
    await store.insertSession(session('s2'));
    // Two names that a wrong literal would merge or split ('a,b' against 'a' and 'b').
    await store.insertSession(session('s3'));
    const refs = AWKWARD.map((name) => ({ scope: 'host:h', kind: 'lock', name }));
    const got = await store.acquireClaims('s1', refs, judge);
    assert.ok(got.ok);
    assert.deepEqual(
      got.grants.map((g) => g.ref.name),
      AWKWARD,
    );
    const held = await store.listClaims({ sessionId: 's1' });
    assert.deepEqual(held.map((c) => c.name).sort(), [...AWKWARD].sort());
    // Another session is refused on each of them, and free to claim names next to them.
    const refused = await store.acquireClaims('s2', [refs[1]!], judge);
    assert.equal(refused.ok, false);
    const nextTo = await store.acquireClaims('s3', [{ scope: 'host:h', kind: 'lock', name: 'a' }], judge);
    assert.ok(nextTo.ok, '"a" is not "a,b"');
    const released = await store.releaseClaims('s1', refs);
    assert.deepEqual(
      released.released.map((c) => c.name),
      AWKWARD,
    );
    assert.deepEqual(released.notHeld, []);
    assert.deepEqual(await store.listClaims({ sessionId: 's1' }), []);
  } finally {
    await store.close();
    await drop();
  }
});
