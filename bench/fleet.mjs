// bench/fleet: a fleet of hosts on one PostgreSQL team store, as issue 28 (item 3) sets it: H
// simulated hosts (each its own LANES_HOST_ID, LANES_HOME and runtime directory, so its own broker)
// x C agents each, every agent calling the real `lanes hook claude-code pre-tool-use` in a loop for
// S seconds on an edit of a path another host's session claimed. The right answer is always a deny.
// Counted per mode, straight to the server (LANES_BROKER=0) and through each host's broker:
//   denied   the claim was checked and the edit refused (right)
//   loud     allowed, and the agent and its model were told lanes could not check it (fail-open, said)
//   silent   allowed with nothing said: the failure the issue forbids
//   refused  calls whose connection the server refused (too many clients), from the hooks' stderr;
//            and the server log's "too many clients" lines in the window, when the log is readable
// with the most server connections seen (pg_stat_activity, sampled) against max_connections.
// with each call's time against the hook's budget (the 10 s timeout lanes installs for PreToolUse).
// --pace MS: each agent thinks a random 0..2×MS before each call, as agents do between tool calls (0: a
// tight loop; 256+ hook processes at once then leave 2 cores so loaded that times mean little).
// --client hook (default): each call is the real `lanes hook claude-code pre-tool-use`, a process of
// its own; --client library: each host is one process whose agents call the library's hook
// (bench/fleet-host.mjs) — the same decision and the same store connections, without a Node start-up
// per call, so that 128 hosts fit on 2 cores.
// Usage: node bench/fleet.mjs [--hosts 64] [--clients 4] [--seconds 60] [--pace 0] [--client hook|library]
//   [--modes direct,broker] [--store URL]
//   (the store defaults to LANES_TEST_PG_URL; each mode gets a fresh schema, dropped after)
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { libraryHosts, stopAll } from './fleet-library.mjs';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const HOSTS = Number(opt('--hosts', 64));
const CLIENTS = Number(opt('--clients', 4));
const SECONDS = Number(opt('--seconds', 60));
const PACE = Number(opt('--pace', 0));
const CLIENT = opt('--client', 'hook');
const BUDGET_MS = 10_000;
const MODES = opt('--modes', 'direct,broker').split(',');
const STORE = opt('--store', process.env.LANES_TEST_PG_URL);
const SERVER_LOG = opt('--server-log', '/var/log/postgresql/postgresql-15-lanes.log');
if (!STORE) throw new Error('give --store postgres://… or set LANES_TEST_PG_URL');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const pg = createRequire(import.meta.url)('pg');

function sh(env, args, input, cwd) {
  return new Promise((resolve) => {
    const t = performance.now();
    const p = spawn(process.execPath, [CLI, ...args], { env, cwd });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, out, err, ms: performance.now() - t }));
    p.stdin.end(input ?? '');
  });
}

function classify(r) {
  let answer = {};
  try {
    answer = JSON.parse(r.out || '{}');
  } catch {
    // not JSON: counted as other
  }
  const h = answer.hookSpecificOutput ?? {};
  if (h.permissionDecision === 'deny') return 'denied';
  const said = `${h.additionalContext ?? ''} ${answer.systemMessage ?? ''}`;
  if (/could not check this call/.test(said)) return 'loud';
  if (r.code === 0) return 'silent';
  return 'other';
}

const REFUSAL = /too many clients|remaining connection slots|too many connections/i;

function serverLogSize() {
  try {
    return statSync(SERVER_LOG).size;
  } catch {
    return null;
  }
}

function serverLogRefusals(from) {
  if (from === null) return 'n/a';
  try {
    return readFileSync(SERVER_LOG)
      .subarray(from)
      .toString('utf8')
      .split('\n')
      .filter((l) => REFUSAL.test(l)).length;
  } catch {
    return 'n/a';
  }
}

async function runMode(mode) {
  const base = scratch(`lanes-fleet-${mode}-`);
  const schema = `fleet_${mode}_${Date.now().toString(36)}`;
  const u = new URL(STORE);
  u.searchParams.set('schema', schema);
  const url = u.toString();
  const repo = join(base, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeFileSync(join(repo, 'src', 'app.ts'), 'x\n');
  const common = {
    ...process.env,
    LANES_STORE: url,
    LANES_BROKER: mode === 'broker' ? '1' : '0',
    // Every host judges the holder (another host) by its lease: long enough for the whole run.
    LANES_LEASE_MS: String((SECONDS + 600) * 1000),
    LANES_GC_AFTER_MS: 'off',
    NO_COLOR: '1',
  };
  delete common.LANES_SESSION;
  delete common.XDG_RUNTIME_DIR;
  const hostEnv = (name) => {
    const home = join(base, name);
    mkdirSync(home, { recursive: true, mode: 0o700 });
    return { ...common, LANES_HOME: home, LANES_HOST_ID: name, XDG_CACHE_HOME: join(base, 'cache') };
  };
  // The holder: a session of another host claiming src/.
  const holderEnv = hostEnv('holder');
  const started = await sh({ ...holderEnv, LANES_BROKER: '0' }, ['start', '--label', 'holder'], '', repo);
  if (started.code !== 0) throw new Error(`holder: ${started.err}`);
  const claimed = await sh(
    { ...holderEnv, LANES_BROKER: '0', LANES_SESSION: started.out.trim() },
    ['claim', 'path:src/'],
    '',
    repo,
  );
  if (claimed.code !== 0) throw new Error(`holder claim: ${claimed.err}`);
  // Warm the code caches once, out of the count.
  const warmEnv = hostEnv('warm');
  for (const event of ['session-start', 'pre-tool-use'])
    await sh(warmEnv, ['hook', 'claude-code', event], JSON.stringify({ session_id: randomUUID(), cwd: repo }), repo);

  const watch = new pg.Client({ connectionString: STORE });
  await watch.connect();
  const [{ max }] = (await watch.query("SELECT current_setting('max_connections')::int AS max")).rows;
  let most = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const r = await watch.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'",
      );
      most = Math.max(most, r.rows[0].n);
      await new Promise((res) => setTimeout(res, 50));
    }
  })();

  const logFrom = serverLogSize();
  const counts = { denied: 0, loud: 0, silent: 0, other: 0, refused: 0 };
  const lat = [];
  const examples = {};
  if (CLIENT === 'library')
    await libraryHosts(
      { hosts: HOSTS, clients: CLIENTS, seconds: SECONDS, pace: PACE },
      hostEnv,
      repo,
      counts,
      lat,
      examples,
    );
  else await hookClients(hostEnv, repo, counts, lat, examples);
  sampling = false;
  await sampler;
  const serverRefusals = serverLogRefusals(logFrom);
  const brokers = [];
  if (mode === 'broker')
    for (let h = 0; h < HOSTS; h++) {
      const root = join(base, `host-${h}`, 'run', 'broker');
      if (!existsSync(root)) continue;
      for (const key of execFileSync('ls', [root], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
        try {
          brokers.push(JSON.parse(readFileSync(join(root, key, 'broker.json'), 'utf8')));
        } catch {
          // gone
        }
      }
    }
  stopAll(base);
  await watch.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await watch.end();
  lat.sort((a, b) => a - b);
  return {
    mode,
    calls: lat.length,
    ...counts,
    serverRefusals,
    brokerRefusals: brokers.reduce((n, b) => n + (b.pool?.refused ?? 0), 0),
    brokers: brokers.length,
    most,
    max,
    p50: percentile(lat, 50),
    p95: percentile(lat, 95),
    p99: percentile(lat, 99),
    over: lat.filter((ms) => ms > BUDGET_MS).length,
    examples,
  };
}

/** --client hook: every call the real hook command, a process of its own. */
async function hookClients(hostEnv, repo, counts, lat, examples) {
  // Every agent's session first (its session-start hook), then the S seconds of edits, all at once.
  const agents = [];
  for (let h = 0; h < HOSTS; h++) {
    const env = hostEnv(`host-${h}`);
    for (let c = 0; c < CLIENTS; c++) agents.push({ env, id: randomUUID() });
  }
  await Promise.all(
    agents.map((a) =>
      sh(
        a.env,
        ['hook', 'claude-code', 'session-start'],
        JSON.stringify({ session_id: a.id, cwd: repo, hook_event_name: 'SessionStart', source: 'startup' }),
        repo,
      ),
    ),
  );
  const deadline = Date.now() + SECONDS * 1000;
  const clients = agents.map(async (a) => {
    const edit = JSON.stringify({
      session_id: a.id,
      cwd: repo,
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: join(repo, 'src', 'app.ts') },
    });
    // An agent thinks before its first call too: a fleet's agents do not all call in one instant.
    if (PACE > 0) await new Promise((res) => setTimeout(res, Math.random() * 2 * PACE));
    while (Date.now() < deadline) {
      const r = await sh(a.env, ['hook', 'claude-code', 'pre-tool-use'], edit, repo);
      const kind = classify(r);
      counts[kind]++;
      if (REFUSAL.test(r.err)) counts.refused++;
      if (kind !== 'denied') examples[kind] ??= (r.err || r.out).trim().slice(0, 300);
      lat.push(r.ms);
      if (PACE > 0) await new Promise((res) => setTimeout(res, Math.random() * 2 * PACE));
    }
  });
  await Promise.all(clients);
}

const rows = [];
for (const mode of MODES) {
  const r = await runMode(mode);
  rows.push(r);
  for (const [k, v] of Object.entries(r.examples)) console.log(`${mode}, a ${k} call: ${v}`);
}
console.log(
  `\n${HOSTS} hosts x ${CLIENTS} agents (${CLIENT} clients), ${SECONDS} s each mode, pace ${PACE} ms, every call an edit of a path another host claimed (right answer: deny)\n`,
);
console.log(
  table(
    [
      'mode',
      'calls',
      'denied',
      'loud fail-open',
      'silent fail-open',
      'other',
      'refused (hooks)',
      'refused (server log)',
      'broker-absorbed',
      'server conns max',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      `over ${BUDGET_MS / 1000} s`,
    ],
    rows.map((r) => [
      r.mode,
      r.calls,
      r.denied,
      r.loud,
      r.silent,
      r.other,
      r.refused,
      r.serverRefusals,
      r.mode === 'broker' ? `${r.brokerRefusals} (${r.brokers} brokers)` : '-',
      `${r.most} of ${r.max}`,
      r.p50.toFixed(0),
      r.p95.toFixed(0),
      r.p99.toFixed(0),
      r.over,
    ]),
  ),
);
