import { readdirSync, readlinkSync } from 'node:fs';
import { childProcess } from '../builtins.js';
import { readProcStat } from './proc.js';
import { platform } from './select.js';

/** A process and the directory it works in. */
export interface ProcessCwd {
  pid: number;
  /** Its parent (0 when unknown): lets a caller leave out a whole process tree (an agent and its children). */
  ppid: number;
  name: string;
  cwd: string;
}

/** Every process' working directory that can be read, and how many could not be (another user's). */
export interface CwdScan {
  processes: ProcessCwd[];
  unreadable: number;
}

/**
 * The working directories of this machine's processes, in one pass: Linux reads /proc/<pid>/cwd,
 * macOS and the BSDs ask `lsof -d cwd` (present by default on macOS). Null where neither works:
 * callers then say they could not check. Another user's processes are unreadable without root:
 * counted, not guessed.
 */
export function scanProcessCwds(): CwdScan | null {
  // The platform lanes judges liveness on (LANES_PLATFORM simulates the ps one on Linux).
  const kind = platform()?.kind;
  return kind === 'proc' ? scanProc() : kind === 'ps' ? scanLsof() : null;
}

function scanProc(): CwdScan | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const processes: ProcessCwd[] = [];
  let unreadable = 0;
  for (const pid of pids) {
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch (e) {
      // ENOENT: it ended meanwhile; EACCES: another user's.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') unreadable++;
      continue;
    }
    const stat = readProcStat(Number(pid));
    processes.push({ pid: Number(pid), ppid: stat?.ppid ?? 0, name: stat?.comm ?? '', cwd });
  }
  return { processes, unreadable };
}

function scanLsof(): CwdScan | null {
  let out: string;
  try {
    // -F pcRn: records of p<pid>, c<command>, R<parent pid>, n<name>; -d cwd: only working directories.
    out = childProcess().execFileSync('lsof', ['-nP', '-w', '-d', 'cwd', '-F', 'pcRn'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
      timeout: 20_000,
    });
  } catch (e) {
    // lsof exits 1 when some processes could not be read, with the rest still printed; killed
    // (the timeout), what it printed is a part: unknown, never taken for the whole list.
    const err = e as { stdout?: string; signal?: string | null; code?: string };
    if (err.signal || err.code === 'ETIMEDOUT') return null;
    if (typeof err.stdout !== 'string' || err.stdout === '') return null;
    out = err.stdout;
  }
  const processes: ProcessCwd[] = [];
  let pid = 0;
  let ppid = 0;
  let name = '';
  for (const line of out.split('\n')) {
    const tag = line[0];
    const value = line.slice(1);
    if (tag === 'p') pid = Number(value);
    else if (tag === 'R') ppid = Number(value);
    else if (tag === 'c') name = value;
    else if (tag === 'n' && pid > 0) processes.push({ pid, ppid, name, cwd: value });
  }
  return { processes, unreadable: 0 };
}
