// bench/claims-server: what PostgreSQL's side of a claim/release cycle costs, with pgbench (a C
// client: next to nothing on the client) as the client, so the server's work alone sets the pace
// (issue 28, item 4: lanes' claims >= 50% of the two-write floor). Alternating, in the same run,
// 16 clients each: the two-write floor (bench/claims' own two statements), lanes' two functions
// as lanes calls them (lanes_claim, lanes_release), and the same rows written by one statement per
// call (a data-modifying CTE: the fence's next token, the claim, its journal entry; the delete and
// its journal entry; the claimant's row locked) -- no conflict test, no check of the claimant's
// state, so a lower bound for any body of the two functions, not a replacement. Each client claims
// its own resources (no waiting, unlike bench/claims). Needs pgbench and a PostgreSQL URL.
// --ablate adds, with pgbench, lanes_claim without one part of its body at a time (the claimant's
// row lock, the resource's advisory lock, the conflict test, the journal entry): copies of the
// function under other names in the bench's schema, their answers not checked, so what each part
// costs the server is measured in the same run.
// Usage: node bench/claims-server.mjs [--pg URL] [--clients 16] [--seconds 10] [--rounds 3]
//   [--node [--cycles 2000]] (the same scripts through bare Node pg clients too) [--ablate]
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, postgresCpuMs, runWorkers, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const PG = opt('--pg', process.env.LANES_TEST_PG_URL ?? '');
const CLIENTS = Number(opt('--clients', 16));
const SECONDS = Number(opt('--seconds', 10));
const ROUNDS = Number(opt('--rounds', 3));
// --node: each script also through bare Node pg clients (claims-server-worker.mjs), CYCLES each.
const NODE_CYCLES = process.argv.includes('--node') ? Number(opt('--cycles', 2000)) : 0;
const ABLATE = process.argv.includes('--ablate');
if (!PG) throw new Error('bench/claims-server needs a PostgreSQL server: --pg URL or LANES_TEST_PG_URL');
if (spawnSync('pgbench', ['--version']).error)
  throw new Error('bench/claims-server needs pgbench on PATH (Debian: postgresql-client)');

const base = scratch('lanes-bench-claims-server-');
const schema = `bench_server_${process.pid}`;
const url = new URL(PG);
url.searchParams.set('schema', schema);
const pg = createRequire(import.meta.url)('pg');
const sql = async (text, args = []) => {
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  try {
    return (await c.query(text, args)).rows;
  } finally {
    await c.end();
  }
};

// The store made by lanes itself (its schema and functions), one session per pgbench client.
const { openLanes } = await import(join(ROOT, 'dist', 'index.js'));
process.env.LANES_HOME = base;
const lanes = await openLanes({ store: url.toString(), session: null, notice: false });
const ids = [];
for (let i = 0; i < CLIENTS; i++) ids.push((await lanes.sessions.start({ pid: process.pid, label: `c${i}` })).id);
await lanes.close();
const s = `"${schema}"`;
await sql(`CREATE TABLE ${s}.bench_ids (client int PRIMARY KEY, sid text NOT NULL)`);
for (const [i, id] of ids.entries()) await sql(`INSERT INTO ${s}.bench_ids VALUES ($1, $2)`, [i, id]);
await sql(`CREATE TABLE ${s}.floor_rows (id int PRIMARY KEY, v int NOT NULL)`);

// pgbench turns every :name outside a variable it knows into a parameter too, so no text below may
// hold a colon: the scope, the lock key and the subjects are built with chr(58).
const C = 'chr(58)';
// Each client's session id, looked up in the statement (pgbench's variables are numbers): one
// index read per call more than lanes makes.
const sid = `(SELECT sid FROM ${s}.bench_ids WHERE client = :client_id)`;
const name = `'c' || CAST(:client_id AS int)::text || 'r' || CAST(:r AS int)::text`;
const scope = `'host' || ${C} || 'bench'`;
const key = `'lanes' || ${C} || 'claims' || ${C} || '${schema}' || ${C} || ${scope} || ${C} || 'lock' || ${C} || ${name}`;
// Each cycle's resource, one of the client's own 100.
const drawResource = '\\set r random(0, 99)\n';
// bench/claims' write floor as its workers run it: an upsert of the client's row, then its delete.
const upsert = `INSERT INTO ${s}.floor_rows (id, v) VALUES (:client_id, 1) ON CONFLICT (id) DO UPDATE SET v = ${s}.floor_rows.v + 1;`;
const remove = `DELETE FROM ${s}.floor_rows WHERE id = :client_id;`;
const scripts = {
  'floor: 2 x 1-row write': `${upsert}\n${remove}\n`,
  'lanes_claim + lanes_release': `${drawResource}SELECT ${s}.lanes_claim(${sid}, ARRAY[${scope}], ARRAY['lock'], ARRAY[${name}], ARRAY[${key}], '10000', 'bench', NULL::text[], NULL::text[], NULL::text[], NULL::text[], NULL::text[]);
SELECT * FROM ${s}.lanes_release(${sid}, ARRAY[${scope}], ARRAY['lock'], ARRAY[${name}], '10000', 'bench');
`,
  'the same rows, one statement per call': `${drawResource}WITH l AS (SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))), me AS (SELECT id, ticket FROM ${s}.sessions, l WHERE id = ${sid} FOR UPDATE OF sessions), f AS (INSERT INTO ${s}.fences AS f (scope, kind, name, last_token) SELECT ${scope}, 'lock', ${name}, 1 FROM me ON CONFLICT (scope, kind, name) DO UPDATE SET last_token = f.last_token + 1 RETURNING last_token), c AS (INSERT INTO ${s}.claims (scope, kind, name, session_id, token, acquired_at) SELECT ${scope}, 'lock', ${name}, ${sid}, last_token, 0 FROM f ON CONFLICT (scope, kind, name) DO UPDATE SET session_id = excluded.session_id, token = excluded.token, acquired_at = excluded.acquired_at), j AS (INSERT INTO ${s}.journal (at, session_id, host, kind, subject, details) SELECT 0, ${sid}, 'bench', 'claim.grant', 'lock' || ${C} || ${name}, jsonb_build_object('token', last_token) FROM f) SELECT last_token FROM f;
WITH d AS (DELETE FROM ${s}.claims c WHERE c.scope = ${scope} AND c.kind = 'lock' AND c.name = ${name} AND c.session_id = ${sid} RETURNING c.*), j AS (INSERT INTO ${s}.journal (at, session_id, host, kind, subject, details) SELECT 0, d.session_id, 'bench', 'claim.release', d.kind || ${C} || d.name, jsonb_build_object('token', d.token) FROM d) SELECT * FROM d;
`,
};

// lanes_claim less one part, each a copy under another name; an edit that no longer applies (the
// function changed) fails the bench rather than measuring the whole body under a wrong label.
const ABLATIONS = {
  "without the claimant's row lock": (t) => t.replace(' FOR UPDATE;', ';'),
  "without the resource's advisory lock": (t) =>
    t.replace('v_void := pg_advisory_xact_lock(hashtextextended(v_key, 0))::text;', 'NULL;'),
  'without the conflict test': (t) =>
    t.replace(
      /FOR i IN 1 \.\. cardinality\(p_names\) LOOP\s+CONTINUE WHEN p_kinds\[i\] = 'path';[\s\S]*?END LOOP;/,
      '',
    ),
  'without the journal entry': (t) =>
    t.replace(/INSERT INTO \S+journal [\s\S]*?jsonb_build_object\('token', v_token\)\);/, ''),
};
if (ABLATE) {
  const [{ def }] = await sql(
    `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = $1 AND p.proname = 'lanes_claim'`,
    [schema],
  );
  for (const [i, [label, edit]] of Object.entries(ABLATIONS).entries()) {
    const text = edit(def);
    if (text === def)
      throw new Error(`bench/claims-server --ablate: lanes_claim changed, "${label}" no longer applies`);
    await sql(text.replace(/FUNCTION \S+\.lanes_claim\(/, `FUNCTION ${s}.lanes_claim_ablated_${i}(`));
    // Journaled under a host of its own: the check at the end counts only the whole functions'
    // entries, and asks of each copy that it granted (a release is journaled only of a claim held).
    scripts[`lanes_claim ${label} + lanes_release`] = scripts['lanes_claim + lanes_release']
      .replace('.lanes_claim(', `.lanes_claim_ablated_${i}(`)
      .replaceAll(`'10000', 'bench'`, `'10000', 'ablated-${i}'`);
  }
}
const files = Object.fromEntries(
  Object.entries(scripts).map(([label, text], i) => {
    const f = join(base, `script-${i}.sql`);
    writeFileSync(f, text);
    // The same statements for a Node client: $1 the client's number, $2 the resource's.
    const statements = text
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('\\'))
      .map((l) => l.replace(/;$/, '').replaceAll(':client_id', '$1').replaceAll(':r ', '$2 '));
    writeFileSync(`${f}.json`, JSON.stringify(statements));
    return [label, f];
  }),
);

/** CLIENTS bare Node pg clients running `label`'s statements NODE_CYCLES times each. */
async function runNode(label) {
  let cpu0 = null;
  const results = await runWorkers(
    Array.from({ length: CLIENTS }, (_, i) => [
      process.execPath,
      [join(ROOT, 'bench', 'claims-server-worker.mjs'), PG, `${files[label]}.json`, String(NODE_CYCLES), String(i)],
    ]),
    process.env,
    () => (cpu0 = postgresCpuMs()),
  );
  await new Promise((r) => setTimeout(r, 300)); // exited backends' time reaches their parent
  const cpu1 = postgresCpuMs();
  const cycles = CLIENTS * NODE_CYCLES;
  const secs = (Math.max(...results.map((r) => r.end)) - Math.min(...results.map((r) => r.start))) / 1000;
  return {
    tps: cycles / secs,
    serverMs: cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / cycles : null,
    clientMs: results.reduce((n, r) => n + r.cpuUs, 0) / 1000 / cycles,
  };
}

/** One pgbench run of `label`: cycles/s and the server's CPU per cycle (ms, a server on this machine). */
function run(label) {
  const cpu0 = postgresCpuMs();
  const r = spawnSync(
    'pgbench',
    ['-n', '-M', 'prepared', '-c', String(CLIENTS), '-j', '4', '-T', String(SECONDS), '-f', files[label], PG],
    { encoding: 'utf8' },
  );
  const cpu1 = postgresCpuMs();
  const tps = Number(r.stdout.match(/tps = ([\d.]+)/)?.[1]);
  const failed = Number(r.stdout.match(/number of failed transactions: (\d+)/)?.[1] ?? 0);
  if (r.status !== 0 || !tps || failed) throw new Error(`pgbench (${label}) failed: ${r.stderr}${r.stdout}`);
  const cycles = Number(r.stdout.match(/number of transactions actually processed: (\d+)/)?.[1]);
  return { tps, serverMs: cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / cycles : null };
}

const labels = Object.keys(scripts);
const nodeLabels = labels.slice(0, 3); // the ablations run with pgbench only
const rows = [];
const shares = Object.fromEntries(labels.map((l) => [l, []]));
const nodeShares = Object.fromEntries(labels.map((l) => [l, []]));
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const got = {};
    // Rotated, so no script always runs first after the floor (or after a checkpoint).
    for (let i = 0; i < labels.length; i++) {
      const label = labels[(round - 1 + i) % labels.length];
      got[label] = run(label);
    }
    const floor = got[labels[0]].tps;
    for (const label of labels) {
      shares[label].push(got[label].tps / floor);
      rows.push([
        String(round),
        `${label} (pgbench)`,
        got[label].tps.toFixed(0),
        '-',
        got[label].serverMs?.toFixed(3) ?? '-',
        `${((100 * got[label].tps) / floor).toFixed(0)}%`,
      ]);
    }
    if (!NODE_CYCLES) continue;
    const viaNode = {};
    for (let i = 0; i < nodeLabels.length; i++) {
      const label = nodeLabels[(round - 1 + i) % nodeLabels.length];
      viaNode[label] = await runNode(label);
    }
    const nodeFloor = viaNode[labels[0]].tps;
    for (const label of nodeLabels) {
      nodeShares[label].push(viaNode[label].tps / nodeFloor);
      rows.push([
        String(round),
        `${label} (Node pg clients)`,
        viaNode[label].tps.toFixed(0),
        viaNode[label].clientMs.toFixed(3),
        viaNode[label].serverMs?.toFixed(3) ?? '-',
        `${((100 * viaNode[label].tps) / nodeFloor).toFixed(0)}%`,
      ]);
    }
  }
  // The functions' answers were real: every grant journaled and released.
  const [j] = await sql(
    `SELECT count(*) FILTER (WHERE kind = 'claim.grant') AS g, count(*) FILTER (WHERE kind = 'claim.release') AS r
     FROM ${s}.journal WHERE host = 'bench'`,
  );
  const [held] = await sql(`SELECT count(*) AS n FROM ${s}.claims`);
  if (j.g !== j.r || Number(held.n) !== 0 || Number(j.g) === 0)
    throw new Error(`claims left or unjournaled: ${JSON.stringify({ ...j, held: held.n })}`);
  if (ABLATE) {
    const granted = await sql(
      `SELECT host, count(*) AS n FROM ${s}.journal WHERE kind = 'claim.release' AND host LIKE 'ablated-%' GROUP BY host`,
    );
    const none = Object.keys(ABLATIONS).filter(
      (_, i) => !granted.some((g) => g.host === `ablated-${i}` && Number(g.n) > 0),
    );
    if (none.length) throw new Error(`bench/claims-server --ablate: never granted: lanes_claim ${none.join('; ')}`);
  }
} finally {
  await sql(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
}
console.log(
  table(
    ['round', 'script (client)', 'cycles/s', 'client CPU ms/cycle', 'server CPU ms/cycle', 'of the write floor'],
    rows,
  ),
);
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)];
const summary = (by, which) =>
  which
    .slice(1)
    .map(
      (l) =>
        `${l} ${by[l].map((x) => `${(100 * x).toFixed(0)}%`).join(' ')} (median ${(100 * median(by[l])).toFixed(0)}%)`,
    )
    .join('; ');
const version = execFileSync('pgbench', ['--version'], { encoding: 'utf8' }).trim();
console.log(
  `${CLIENTS} clients, ${ROUNDS} rounds. pgbench (${version}, ${SECONDS} s): ${summary(shares, labels)} of the write floor.`,
);
if (NODE_CYCLES)
  console.log(
    `Bare Node pg clients (${NODE_CYCLES} cycles each): ${summary(nodeShares, nodeLabels)} of the same clients' write floor.`,
  );
console.log("A cycle through lanes' library: bench/claims.");
