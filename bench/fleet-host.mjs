// One simulated host of bench/fleet.mjs in --client library mode: one process (its own
// LANES_HOST_ID, LANES_HOME and runtime directory, so its own broker, from the environment) whose C
// agents each call the library's hook — the decision `lanes hook … pre-tool-use` makes, without a
// Node start-up per call (256+ of those at once leave 2 cores too loaded for the times to mean
// anything). Each agent's session starts, then "ready"; on "go" on stdin the agents edit for S
// seconds; one JSON line of counts and times goes to stdout.
// Usage (by bench/fleet.mjs): node bench/fleet-host.mjs DIST REPO CLIENTS SECONDS PACE_MS
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, repo, clients, seconds, pace] = process.argv.slice(2);
const { openLanes } = await import(pathToFileURL(join(dist, 'index.js')).href);
const REFUSAL = /too many clients|remaining connection slots|too many connections/i;

const event = (id, kind, extra = {}) => ({
  agent: 'claude-code',
  kind,
  agentSessionId: id,
  cwd: repo,
  paths: [],
  command: null,
  source: kind === 'session-start' ? 'startup' : null,
  subagent: null,
  agentPid: process.pid,
  envFile: null,
  toolName: null,
  message: null,
  quota: null,
  ...extra,
});

// Opened again by a call that finds it unopened (as each hook process opens its own): a host whose
// store refused it at start (directly, on a full server) keeps trying, each try a counted call.
let opened = null;
const lanesNow = async () =>
  (opened ??= openLanes({ cwd: repo, session: null, notice: false }).catch((e) => {
    opened = null;
    throw e;
  }));
const agents = [];
for (let c = 0; c < Number(clients); c++) {
  const id = randomUUID();
  try {
    await (await lanesNow()).hook(event(id, 'session-start'));
  } catch {
    // its session starts with its first edit (the pre-edit hook registers it)
  }
  agents.push(id);
}
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));

const counts = { denied: 0, allowed: 0, refused: 0, failed: 0 };
const lat = [];
const examples = {};
const deadline = Date.now() + Number(seconds) * 1000;
await Promise.all(
  agents.map(async (id) => {
    const edit = event(id, 'pre-edit', { paths: [join(repo, 'src', 'app.ts')], toolName: 'Edit' });
    // An agent thinks before its first call too: a fleet's agents do not all call in one instant.
    if (Number(pace) > 0) await new Promise((r) => setTimeout(r, Math.random() * 2 * Number(pace)));
    while (Date.now() < deadline) {
      const t = performance.now();
      try {
        const d = await (await lanesNow()).hook(edit);
        counts[d.permission === 'deny' ? 'denied' : 'allowed']++;
      } catch (e) {
        // What the CLI's hook would answer: allowed, loudly (it could not check). Counted by why.
        const kind = REFUSAL.test(String(e?.message) + String(e?.cause?.message)) ? 'refused' : 'failed';
        counts[kind]++;
        examples[kind] ??= String(e?.message).slice(0, 300);
      }
      lat.push(performance.now() - t);
      if (Number(pace) > 0) await new Promise((r) => setTimeout(r, Math.random() * 2 * Number(pace)));
    }
  }),
);
await opened?.then((l) => l.close({ heartbeat: false })).catch(() => undefined);
process.stdout.write(`${JSON.stringify({ counts, lat, examples })}\n`);
process.exit(0);
