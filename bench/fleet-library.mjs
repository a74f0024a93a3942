// bench/fleet.mjs' --client library: a process per simulated host (bench/fleet-host.mjs), and the
// clean-up that stops whatever the hosts started.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

/** The brokers and watchers the hosts started (found by their LANES_HOME), stopped: none outlives the bench. */
export function stopAll(base) {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1');
      if (env.includes(`LANES_HOME=${base}/`)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone, or not ours
    }
  }
}

/** --client library: a process per host (bench/fleet-host.mjs), released together once every session started. */
export async function libraryHosts(
  { hosts: HOSTS, clients: CLIENTS, seconds: SECONDS, pace: PACE },
  hostEnv,
  repo,
  counts,
  lat,
  examples,
) {
  const hosts = [];
  for (let h = 0; h < HOSTS; h++) {
    const p = spawn(
      process.execPath,
      [join(ROOT, 'bench', 'fleet-host.mjs'), join(ROOT, 'dist'), repo, String(CLIENTS), String(SECONDS), String(PACE)],
      { env: hostEnv(`host-${h}`), cwd: repo },
    );
    const host = { p, out: '', err: '' };
    p.stdout.on('data', (d) => (host.out += d));
    p.stderr.on('data', (d) => (host.err += d));
    host.done = new Promise((res) => p.on('close', res));
    hosts.push(host);
  }
  await Promise.all(
    hosts.map(
      (h) =>
        new Promise((resolve, reject) => {
          const check = () => /ready/.test(h.out) && resolve();
          h.p.stdout.on('data', check);
          h.done.then((code) => reject(new Error(`a host exited (${code}) before its sessions started: ${h.err}`)));
        }),
    ),
  );
  for (const h of hosts) h.p.stdin.end('go\n');
  for (const h of hosts) {
    const code = await h.done;
    if (code !== 0) throw new Error(`a host failed (${code}): ${h.err}`);
    const r = JSON.parse(h.out.trim().split('\n').pop());
    counts.denied += r.counts.denied;
    counts.silent += r.counts.allowed;
    counts.loud += r.counts.refused + r.counts.failed;
    counts.refused += r.counts.refused;
    for (const ms of r.lat) lat.push(ms);
    for (const [k, v] of Object.entries(r.examples)) examples[k] ??= v;
  }
}
