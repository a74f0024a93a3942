// Shared helpers for the benchmarks: spawning ready/go workers, percentiles, tables.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname;

const scratchDirs = [];
// LANES_BENCH_KEEP=1 keeps them (to look at what a run left), and says where.
process.on('exit', () => {
  if (process.env.LANES_BENCH_KEEP === '1') console.error(`kept: ${scratchDirs.join(' ')}`);
  // maxRetries: a process the bench stopped (a broker) may still be writing its last file there.
  else for (const d of scratchDirs) rmSync(d, { recursive: true, force: true, maxRetries: 5 });
});

/** A scratch directory, removed when the benchmark exits; on tmpfs when available (as XDG_RUNTIME_DIR is in real use). */
export function scratch(prefix) {
  const base = process.env.LANES_BENCH_TMP || '/dev/shm';
  let dir;
  try {
    dir = mkdtempSync(join(base, prefix));
  } catch {
    dir = mkdtempSync(join('/tmp', prefix));
  }
  scratchDirs.push(dir);
  return dir;
}

/**
 * Starts workers, waits until each printed "ready", releases them together, collects their JSON
 * line. `onGo`: called just before the release (to start a measurement after the set-up).
 */
export async function runWorkers(commands, env, onGo = () => undefined) {
  const kids = commands.map(([file, args]) => {
    const proc = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const kid = { proc, out: '', err: '' };
    proc.stdout.on('data', (d) => (kid.out += d));
    proc.stderr.on('data', (d) => (kid.err += d));
    kid.exit = new Promise((res) => proc.on('close', res));
    return kid;
  });
  await Promise.all(kids.map((k) => waitFor(k, /ready/)));
  onGo();
  for (const k of kids) k.proc.stdin.write('go\n');
  const codes = await Promise.all(kids.map((k) => k.exit));
  return kids.map((k, i) => {
    if (codes[i] !== 0) throw new Error(`worker failed (${codes[i]}): ${k.err}`);
    const line = k.out.trim().split('\n').pop();
    return JSON.parse(line);
  });
}

function waitFor(kid, re) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (re.test(kid.out)) return resolve();
    };
    kid.proc.stdout.on('data', check);
    kid.exit.then((c) => reject(new Error(`worker exited (${c}) before ready: ${kid.err}`)));
    check();
  });
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function table(head, rows) {
  const all = [head, ...rows].map((r) => r.map(String));
  const w = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  return all
    .map(
      (r, j) =>
        r.map((c, i) => c.padEnd(w[i])).join('  ') + (j === 0 ? '\n' + w.map((n) => '-'.repeat(n)).join('  ') : ''),
    )
    .join('\n');
}

/** The raw-git floor of `lanes conflicts` (bench/git.mjs, bench/scale.mjs): per worktree status, a private-index
 capture, merge-base and diff-tree; a merge-tree per pair sharing a file. Run with TMPF set, in the repository. */
export const CONFLICTS_FLOOR = `
tips=""
for wt in $(git worktree list --porcelain | sed -n 's/^worktree //p'); do
  git -C "$wt" status --porcelain --untracked-files=all > /dev/null
  gd=$(git -C "$wt" rev-parse --absolute-git-dir); idx="$gd/floor.index"; cp "$gd/index" "$idx"
  GIT_INDEX_FILE="$idx" git -C "$wt" add -A; t=$(GIT_INDEX_FILE="$idx" git -C "$wt" write-tree); rm -f "$idx"
  c=$(echo w | git -C "$wt" commit-tree "$t" -p HEAD); b=$(git merge-base "$c" main)
  git diff-tree -r --name-only "$b" "$c" > "$TMPF.$c"; tips="$tips $c"
done
for a in $tips; do for b in $tips; do
  if [ "$a" \\< "$b" ] && [ -n "$(comm -12 <(sort "$TMPF.$a") <(sort "$TMPF.$b"))" ]; then git merge-tree --write-tree "$a" "$b" > /dev/null || true; fi
done; done
rm -f "$TMPF".*`;

/** utime+stime and cutime+cstime of a process, in clock ticks. */
export function cpuOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { self: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

/** The local TCP ports of a process' sockets (to find the PostgreSQL backends serving it). */
export function tcpPortsOf(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6'])
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && inodes.has(cols[9])) ports.push(parseInt(cols[1].split(':').pop(), 16));
    }
  return ports;
}

/**
 * The CPU of every process named `postgres` on this machine (the server's backends and helpers,
 * and those that exited, through their parent's children time), in ms; null without /proc. Only
 * meaningful for a server on this machine, and it counts whatever else that server did meanwhile.
 */
export function postgresCpuMs() {
  let ticks = 0;
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      } catch {
        continue;
      }
      const c = cpuOf(pid);
      if (c) ticks += c.self + c.children;
    }
  } catch {
    return null;
  }
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}
