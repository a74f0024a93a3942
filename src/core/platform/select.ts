import { LanesError } from '../errors.js';
import { procPlatform } from './proc.js';
import { psPlatform } from './ps.js';
import type { ProcessPlatform } from './types.js';

// Which OS reads process facts how. Linux (and Android) have /proc; macOS and the BSDs have a
// `ps` that knows `-o pid=,ppid=,stat=,lstart=,command=` and a sysctl boot identity. Any other OS
// (Windows, AIX, Solaris) is one lanes cannot judge: `lanes start` says so (startable() below).
const PROC_OSES = new Set(['linux', 'android']);
const PS_OSES = new Set(['darwin', 'freebsd', 'openbsd', 'netbsd', 'dragonfly']);

let selected: ProcessPlatform | null | undefined;

/** LANES_PLATFORM (e.g. `darwin` on Linux: the ps path, simulated) overrides process.platform. */
export function platformName(): string {
  return process.env['LANES_PLATFORM']?.trim() || process.platform;
}

/** The process-facts platform of this OS, chosen once per process; null for an OS lanes cannot judge. */
export function platform(): ProcessPlatform | null {
  if (selected === undefined) {
    const os = platformName();
    selected = PROC_OSES.has(os) ? procPlatform(os) : PS_OSES.has(os) ? psPlatform(os) : null;
  }
  return selected;
}

/**
 * Before a session is registered: can lanes prove, on this host, that a process is alive? If not,
 * an error naming the OS and the facts it cannot read (registering the session anyway would give
 * it a liveness nobody could judge: never proven alive, or never proven dead).
 */
export function assertCanJudge(): ProcessPlatform {
  const p = platform();
  const os = platformName();
  const missing = p
    ? p.selfCheck()
    : ['process start times and states', 'the boot identity (lanes knows how on Linux, macOS and the BSDs)'];
  if (p && missing.length === 0) return p;
  throw new LanesError(
    'E_PLATFORM',
    `lanes cannot prove which processes are alive on this ${os} host: it cannot read ${missing.join(', nor ')}`,
    {
      hint: p
        ? p.kind === 'proc'
          ? 'lanes needs /proc mounted and readable (a container or sandbox may hide it)'
          : 'lanes needs `ps` and `sysctl` on PATH'
        : `${os} is not supported: lanes runs on Linux, macOS and the BSDs`,
      details: { os, missing },
    },
  );
}
