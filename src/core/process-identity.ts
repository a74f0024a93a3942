import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Who owns a session or a gate: enough to prove, later, that it is the very same process. */
export interface OwnerIdentity {
  host: string;
  bootId: string;
  pid: number;
  /** /proc/<pid>/stat field 22 (clock ticks since boot), as a decimal string; '' when unknown. */
  startTime: string;
}

export interface ProcStat {
  /** One-letter process state: R, S, D, Z (zombie), X (dead), … */
  state: string;
  startTime: string;
}

/**
 * Parses /proc/<pid>/stat. The command name (field 2) is in parentheses and may itself contain
 * spaces and ')' characters, so fields are counted only after the LAST ')'.
 */
export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state); field 22 (starttime) is rest[19].
  const state = rest[0];
  const startTime = rest[19];
  if (!state || !startTime || !/^\d+$/.test(startTime)) return null;
  return { state, startTime };
}

export function readProcStat(pid: number): ProcStat | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** The process's command line, for wait notices ("held by pid 123 `node agent.js`"). */
export function readCommandLine(pid: number): string {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter(Boolean).join(' ').slice(0, 200);
  } catch {
    return '';
  }
}

let cachedBootId: string | undefined;

/** The kernel's boot id changes at every boot: a recorded pid from an earlier boot is dead. */
export function bootId(): string {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      cachedBootId = 'unknown-boot';
    }
  }
  return cachedBootId;
}

/** LANES_HOST_ID names this host where hostnames collide (containers, cloned VMs). */
export function hostId(): string {
  return process.env['LANES_HOST_ID']?.trim() || hostname();
}

export function identityOf(pid: number): OwnerIdentity | null {
  const stat = readProcStat(pid);
  if (!stat) return null;
  return { host: hostId(), bootId: bootId(), pid, startTime: stat.startTime };
}
