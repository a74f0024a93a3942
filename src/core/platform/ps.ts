import { childProcess } from '../builtins.js';
import { LanesError } from '../errors.js';
import { parseBootIdentity, parsePs } from './ps-parse.js';
import type { ProcessFacts, ProcessPlatform } from './types.js';

const COLUMNS = 'pid=,ppid=,stat=,lstart=,command=';
// UTC and the C locale make lstart one fixed, parseable format whatever the user's settings;
// -ww: never cut the command line to a terminal's width.
const PS_ENV = { LC_ALL: 'C', TZ: 'UTC0' };

/** Runs a tool and returns its stdout; null when it ran and said "nothing" (ps: no such pids). */
function run(file: string, args: string[]): string | null {
  const r = childProcess().spawnSync(file, args, {
    env: { ...process.env, ...PS_ENV },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw platformError(file, args, r.error.message);
  // ps exits 1 when some of the pids do not exist (macOS and procps alike), silently when none
  // does: what it listed is what it found, whatever its exit status. Exit 1 with nothing listed and
  // an error said, or any other failure, proves nothing: the caller's judgement is "unknown".
  if (r.status === 1 && r.stderr.trim() === '') return r.stdout === '' ? null : r.stdout;
  if (r.status === 1 && r.stdout.trim() !== '' && file === 'ps') return r.stdout;
  if (r.status !== 0) throw platformError(file, args, r.stderr.trim() || `exit ${r.status ?? r.signal}`);
  return r.stdout;
}

function platformError(file: string, args: string[], why: string): LanesError {
  return new LanesError('E_PLATFORM', `cannot read process facts: \`${file} ${args.join(' ')}\` failed: ${why}`, {
    hint: 'lanes proves liveness with `ps` on this system; check that ps is on PATH and works',
  });
}

/**
 * macOS and the BSDs: one `ps` process per decision for every pid it needs, and sysctl's boot
 * identity (macOS: kern.bootsessionuuid, the others: kern.boottime), read once per process.
 * LANES_TEST_BOOT_ID replaces the boot identity (the Linux simulation of this path in the tests).
 */
export function psPlatform(os: string): ProcessPlatform {
  let boot: string | null | undefined;
  const listed = (args: string[]): ProcessFacts[] => parsePs(run('ps', ['-ww', '-o', COLUMNS, ...args]) ?? '');
  return {
    kind: 'ps',
    os,
    facts(pids) {
      const wanted = [...new Set(pids.filter((p) => Number.isSafeInteger(p) && p > 0))];
      const out = new Map<number, ProcessFacts>();
      if (wanted.length === 0) return out;
      for (const f of listed(['-p', wanted.join(',')])) if (wanted.includes(f.pid)) out.set(f.pid, f);
      return out;
    },
    lineage(pid, max) {
      // The whole table in one process: walking up one `ps` per hop would cost a process each.
      const all = new Map(listed(['-A']).map((f) => [f.pid, f]));
      const chain: ProcessFacts[] = [];
      for (let f = all.get(pid); f && chain.length < max; f = f.ppid > 0 ? all.get(f.ppid) : undefined) chain.push(f);
      return chain;
    },
    bootId() {
      if (boot === undefined) {
        const injected = process.env['LANES_TEST_BOOT_ID']?.trim();
        if (injected) boot = injected;
        else {
          try {
            const key = os === 'darwin' ? 'kern.bootsessionuuid' : 'kern.boottime';
            boot = parseBootIdentity(run('sysctl', ['-n', key]) ?? '');
          } catch {
            boot = null;
          }
        }
      }
      return boot;
    },
    selfCheck() {
      const missing: string[] = [];
      try {
        if (!this.facts([process.pid]).has(process.pid))
          missing.push(`process start times and states (\`ps -p ${process.pid}\` does not list lanes itself)`);
      } catch (e) {
        missing.push(`process start times and states (${(e as Error).message})`);
      }
      if (this.bootId() === null)
        missing.push(`the boot identity (\`sysctl -n ${os === 'darwin' ? 'kern.bootsessionuuid' : 'kern.boottime'}\`)`);
      return missing;
    },
  };
}
