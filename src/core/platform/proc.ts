import { LanesError } from '../errors.js';
import { readFileSync } from 'node:fs';
import type { ProcessFacts, ProcessPlatform } from './types.js';

/** One process' /proc/<pid>/stat, parsed. */
export interface ProcStat {
  /** One-letter process state: R, S, D, Z (zombie), X (dead), … */
  state: string;
  startTime: string;
  /** Parent pid (field 4). */
  ppid?: number;
  /** Command name (field 2, at most 15 characters). */
  comm?: string;
  /** Process group (field 5). */
  pgid?: number;
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
  // rest[0] is field 3 (state), rest[1] field 4 (ppid), rest[2] field 5 (pgrp); field 22 (starttime) is rest[19].
  const state = rest[0];
  const startTime = rest[19];
  if (!state || !startTime || !/^\d+$/.test(startTime)) return null;
  return { state, startTime, ppid: Number(rest[1]), comm: text.slice(open + 1, close), pgid: Number(rest[2]) };
}

export function readProcStat(pid: number, strict = false): ProcStat | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch (e) {
    // Gone (ENOENT, ESRCH) is an answer; denied (hidepid=1, a sandbox's policy) is not: strict
    // readers (a liveness judgement) then learn nothing, and the owner is unknown, never dead.
    const code = (e as NodeJS.ErrnoException).code;
    if (strict && code !== 'ENOENT' && code !== 'ESRCH')
      throw new LanesError('E_PLATFORM', `cannot read /proc/${pid}/stat (${code ?? String(e)})`, {
        hint: 'lanes proves liveness from /proc; a process it cannot read is treated as live',
      });
    return null;
  }
}

function readCmdline(pid: number): string {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

function factsOf(pid: number, withCommand: boolean, strict = false): ProcessFacts | null {
  const stat = readProcStat(pid, strict);
  if (!stat) return null;
  return {
    pid,
    ppid: stat.ppid ?? 0,
    state: stat.state,
    startTime: stat.startTime,
    name: stat.comm ?? '',
    command: withCommand ? readCmdline(pid) : '',
    ...(stat.pgid !== undefined && Number.isSafeInteger(stat.pgid) ? { pgid: stat.pgid } : {}),
  };
}

const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id';

/** Linux: one small file per pid under /proc (cheaper than any process), the kernel's boot id. */
export function procPlatform(os: string): ProcessPlatform {
  let boot: string | null | undefined;
  let firstStart: string | null | undefined;
  return {
    kind: 'proc',
    os,
    facts(pids, withCommand = false) {
      const out = new Map<number, ProcessFacts>();
      for (const pid of pids) {
        if (out.has(pid)) continue;
        // One pid that cannot be read (denied) is unknown on its own: state '?', never absent.
        let f: ProcessFacts | null;
        try {
          f = factsOf(pid, withCommand, true);
        } catch {
          f = { pid, ppid: 0, state: '?', startTime: '', name: '', command: '' };
        }
        if (f) out.set(pid, f);
      }
      return out;
    },
    lineage(pid, max, withCommand = true) {
      const chain: ProcessFacts[] = [];
      for (let p = pid; chain.length < max && p > 0;) {
        const f = factsOf(p, withCommand);
        if (!f) break;
        chain.push(f);
        p = f.ppid;
      }
      return chain;
    },
    bootId() {
      if (boot === undefined) {
        try {
          boot = readFileSync(BOOT_ID_FILE, 'utf8').trim() || null;
        } catch {
          boot = null;
        }
      }
      return boot;
    },
    visibleSince() {
      if (firstStart === undefined) firstStart = readProcStat(1)?.startTime ?? null;
      return firstStart;
    },
    selfCheck() {
      const missing: string[] = [];
      if (!readProcStat(process.pid))
        missing.push(`process start times and states (/proc/${process.pid}/stat cannot be read)`);
      if (this.bootId() === null) missing.push(`the boot id (${BOOT_ID_FILE} cannot be read)`);
      return missing;
    },
  };
}
