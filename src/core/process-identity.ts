import { readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { os } from './builtins.js';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { platform, platformName } from './platform/select.js';
import type { ProcessFacts } from './platform/types.js';

export { parseProcStat, readProcStat } from './platform/proc.js';
export type { ProcStat } from './platform/proc.js';

/** Who owns a session or a gate: enough to prove, later, that it is the very same process. */
export interface OwnerIdentity {
  host: string;
  bootId: string;
  pid: number;
  /**
   * When the owner started, as the platform reads it ('' when unknown): on Linux /proc/<pid>/stat
   * field 22 (clock ticks since boot); with `ps` (macOS, BSDs) lstart in seconds since the epoch.
   */
  startTime: string;
}

/** The process's command line, for wait notices ("held by pid 123 `node agent.js`"). */
export function readCommandLine(pid: number): string {
  return (platform()?.facts([pid], true).get(pid)?.command ?? '').slice(0, 200);
}

/** The boot identity changes at every boot: a recorded pid from an earlier boot is dead. */
export function bootId(): string {
  return platform()?.bootId() ?? 'unknown-boot';
}

/** LANES_HOST_ID names this host where hostnames collide (containers, cloned VMs). */
let machineName: string | undefined;

export function hostId(): string {
  // os.hostname() is a system call, and a claim's journal entries ask for it each time.
  return process.env['LANES_HOST_ID']?.trim() || (machineName ??= machineHostname());
}

/**
 * What os.hostname() answers (gethostname: the UTS namespace's node name), read on Linux from
 * /proc without loading node:os in every hook call; elsewhere, or with /proc hidden, from node:os.
 * The platform lanes believes it is on decides: the simulated ps path (LANES_PLATFORM) reads no /proc.
 */
function machineHostname(): string {
  if (platformName() === 'linux')
    try {
      const name = readFileSync('/proc/sys/kernel/hostname', 'utf8').trim();
      if (name) return name;
    } catch {
      // /proc hidden or denied: node:os asks the kernel directly
    }
  return os().hostname();
}

/** The identity of a process whose facts were read already. */
export function identityFrom(facts: ProcessFacts): OwnerIdentity {
  return { host: hostId(), bootId: bootId(), pid: facts.pid, startTime: facts.startTime };
}

export function identityOf(pid: number): OwnerIdentity | null {
  const facts = platform()?.facts([pid]).get(pid);
  // A process whose facts cannot be read has no identity to record.
  return facts && facts.state !== '?' ? identityFrom(facts) : null;
}

/**
 * `pid` and its ancestors, nearest first (one read of the process table on the `ps` path); [] when
 * they cannot be read: the caller then settles for `pid`, whose own proof says what is wrong.
 */
export function lineage(pid: number, max = 13, withCommand = true): ProcessFacts[] {
  try {
    return platform()?.lineage(pid, max, withCommand) ?? [];
  } catch {
    return [];
  }
}

// Launchers that exit as soon as lanes does: a session owned by one of them would die at once.
const LAUNCHER = /^(npm|npx|pnpm|yarn|env|timeout|nice|nohup|sudo|doas)\b/;

const SHELL = /^(sh|bash|dash|zsh|ksh|mksh|yash|busybox)$/;

/**
 * A shell forked to run a command substitution or a pipeline (`X=$(lanes start 2>/dev/null)`,
 * `$(lanes start | cat)`): it exits as soon as lanes does, so it never owns a session; the shell
 * it was forked from does. Told from a nested shell the user started (`bash` typed in bash) by
 * its process group: a fork stays in its parent's group, while a shell started as a job leads a
 * group of its own. Linux only (/proc gives the group; ps does not here).
 */
function forkedSubshell(f: ProcessFacts, parent: ProcessFacts | undefined): boolean {
  return (
    parent !== undefined &&
    SHELL.test(f.name) &&
    f.name === parent.name &&
    f.command !== '' &&
    f.command === parent.command &&
    f.pgid !== undefined &&
    f.pgid === parent.pgid &&
    f.pgid !== f.pid
  );
}

/**
 * The owner of a session started without a command: the process that called lanes (its parent),
 * skipping launchers in between (`npx lanes start`, `env X=1 lanes start`) and shells forked for a
 * command substitution or a pipeline (the README's `export LANES_SESSION=$(lanes start …)` with
 * a redirection or a pipe added).
 */
export function callerPid(ppid: number, chain: ProcessFacts[] = lineage(ppid, 9)): number {
  let pid = ppid;
  for (let hops = 0; hops < 8; hops++) {
    const f = chain.find((c) => c.pid === pid);
    if (!f?.name || f.ppid <= 1) return pid;
    if (
      !LAUNCHER.test(f.name) &&
      !forkedSubshell(
        f,
        chain.find((c) => c.pid === f.ppid),
      )
    )
      return pid;
    pid = f.ppid;
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
export function agentPid(ppid: number, chain: ProcessFacts[] = lineage(ppid, 13)): number {
  let pid = ppid;
  for (let hops = 0; hops < 12; hops++) {
    const f = chain.find((c) => c.pid === pid);
    if (!f?.name || f.ppid <= 1) return pid;
    // The command line only matters for node processes (and /proc reads it only then).
    const lanesItself = f.name === 'node' && runsLanes(f.command || readCommandLine(pid), pid);
    if (!NOT_THE_AGENT.test(f.name) && !lanesItself) return pid;
    pid = f.ppid;
  }
  return pid;
}

/** node's options that take the next argument as their value (`--import tsx`). */
const NODE_VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--input-type',
  '--title',
  '--env-file',
  '--stack-size',
]);

/** The script a node command line runs, or null (none, or code given with -e/-p). */
function scriptOf(args: string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print' || a === '-') return null;
    if (NODE_VALUE_OPTIONS.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return null;
}

let ownDir: string | null | undefined;

/** The directory of the entry file this process runs (lanes' dist/), resolved once. */
function lanesDir(): string | null {
  if (ownDir === undefined) {
    try {
      ownDir = dirname(realpathSync(process.argv[1] ?? ''));
    } catch {
      ownDir = null;
    }
  }
  return ownDir;
}

/**
 * Whether a node process's command line runs lanes' own binary: its script, resolved through
 * symlinks (the `lanes` bin link), is lanes' cli.cjs or hot.cjs, of this installation or of
 * another package named lanes. Not any `node …/cli.cjs`: many agents ship a file of that name.
 */
export function runsLanes(command: string, pid: number): boolean {
  const script = scriptOf(command.trim().split(/\s+/).slice(1));
  if (!script) return false;
  let path = script;
  if (!isAbsolute(path)) {
    // A relative script is resolved against the process's cwd where /proc tells it (Linux); the
    // `ps` platforms have no cheap way to, and settle for the name.
    if (platform()?.kind !== 'proc') return basename(script) === 'lanes';
    try {
      path = resolve(readlinkSync(`/proc/${pid}/cwd`), path);
    } catch {
      return basename(script) === 'lanes';
    }
  }
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return false;
  }
  if (!/^(cli|hot)\.cjs$/.test(basename(real))) return false;
  if (dirname(real) === lanesDir()) return true;
  try {
    return (
      (JSON.parse(readFileSync(join(dirname(real), '..', 'package.json'), 'utf8')) as { name?: unknown }).name ===
      'lanes'
    );
  } catch {
    return false;
  }
}
