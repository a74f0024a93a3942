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
  /** Parent pid (field 4). */
  ppid?: number;
  /** Command name (field 2, at most 15 characters). */
  comm?: string;
}

/**
 * Parses /proc/<pid>/stat. The command name (field 2) is in parentheses and may itself contain
 * spaces and ')' characters, so fields are counted only after the LAST ')'.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state), rest[1] field 4 (ppid); field 22 (starttime) is rest[19].
  const state = rest[0];
  const startTime = rest[19];
  if (!state || !startTime || !/^\d+$/.test(startTime)) return null;
  return { state, startTime, ppid: Number(rest[1]), comm: text.slice(open + 1, close) };
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

// Launchers that exit as soon as lanes does: a session owned by one of them would die at once.
const LAUNCHER = /^(npm|npx|pnpm|yarn|env|timeout|nice|nohup|sudo|doas)\b/;

/**
 * The owner of a session started without a command: the process that called lanes (its parent),
 * skipping launchers in between (`npx lanes start`, `env X=1 lanes start`).
 */
export function callerPid(ppid: number): number {
  let pid = ppid;
  for (let hops = 0; hops < 8; hops++) {
    const stat = readProcStat(pid);
    if (!stat?.comm || !LAUNCHER.test(stat.comm) || !stat.ppid || stat.ppid <= 1) return pid;
    pid = stat.ppid;
  }
  return pid;
}

const NOT_THE_AGENT =
  /^(sh|bash|dash|zsh|fish|ksh|tcsh|env|npx|npm|pnpm|yarn|bunx|timeout|nice|nohup|sudo|doas|lanes)$/;

/**
 * The agent process that ran a hook: the nearest ancestor that is not a shell, a launcher (env,
 * npx, …) or lanes itself (a node process running lanes' binary). Agents run hooks through a shell
 * (`sh -c "lanes hook …"`), so the hook's parent is usually that shell and the agent is above it.
 */
export function agentPid(ppid: number): number {
  let pid = ppid;
  for (let hops = 0; hops < 12; hops++) {
    const stat = readProcStat(pid);
    if (!stat?.comm || !stat.ppid || stat.ppid <= 1) return pid;
    const lanesItself = stat.comm === 'node' && /(^|[/\s])(lanes|cli\.cjs|hot\.cjs)(\s|$)/.test(readCommandLine(pid));
    if (!NOT_THE_AGENT.test(stat.comm) && !lanesItself) return pid;
    pid = stat.ppid;
  }
  return pid;
}
