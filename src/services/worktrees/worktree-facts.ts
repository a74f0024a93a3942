import { lstatSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { LanesError } from '../../core/errors.js';
import { scanProcessCwds } from '../../core/platform/cwds.js';
import { readCommandLine } from '../../core/process-identity.js';
import type { CwdScan } from '../../core/platform/cwds.js';
import { repoInfo } from '../../git/repo.js';
import { listWorktrees } from '../../git/worktree.js';
import type { WorktreeEntry } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext, SessionLiveness } from '../context.js';
import { madeByLanes, madeByOlderLanes } from './made-by-lanes.js';
import type { MadeByLanes } from './made-by-lanes.js';
import type { DeletionFacts } from './may-delete.js';
import { within } from './may-delete.js';
import { lanesWorktreeDir } from './worktree-dir.js';

/** What every deletion decision of one repository reads, read once: its worktrees, this host's sessions, the processes' directories. */
export interface WorktreeScene {
  mainWorktree: string;
  commonDir: string;
  home: string | null;
  lanesDir: string;
  /** The linked worktrees (not the main one). */
  linked: WorktreeEntry[];
  /** Real paths of the main worktree and of each linked one, in that order, resolved once. */
  worktreeReals: string[];
  /** This host's sessions, ended ones too, with their liveness. */
  sessions: SessionRecord[];
  states: Map<string, SessionLiveness>;
  /** Each session's worktree and directory as real paths, resolved once (a store holds thousands). */
  paths: Map<string, { worktree: string | null; cwd: string }>;
  cwds: CwdScan | null;
  /** The store asking (its display form), to tell a worktree made under another store. */
  store: string;
  host: string;
}

/**
 * A lock lanes took to remove a worktree (`lanes: … (pid N on HOST)`) whose process is gone: a
 * removal killed half way. It holds nothing and is taken over; any other lock is the user's.
 */
export function staleLanesLock(reason: string | null, host: string): boolean {
  // The format of lanesLockReason.
  const m = /^lanes: .* \(pid (\d+) on (.+)\)$/.exec(reason ?? '');
  if (!m || m[2] !== host) return false;
  try {
    process.kill(Number(m[1]), 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The reason lanes locks a worktree with while it works on it: staleLanesLock reads it back. */
export function lanesLockReason(what: string, host: string): string {
  return `lanes: ${what} (pid ${process.pid} on ${host})`;
}

export function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * The scene of the repository of ctx.cwd. `openOnly` reads only open sessions (and `also`): what a
 * single removal needs, where the whole history (thousands of ended sessions) is not.
 */
export async function readScene(
  ctx: LanesContext,
  options: { openOnly?: boolean; also?: SessionRecord[]; at?: string } = {},
): Promise<WorktreeScene> {
  // `at`: a directory of the repository to read (a session's worktree), else where ctx was opened.
  const where = options.at ?? ctx.cwd;
  const repo = options.at ? await repoInfo(options.at) : await ctx.repo();
  if (!repo)
    throw new LanesError('E_USAGE', `${where} is not inside a git repository`, {
      hint: 'run it inside the repository whose worktrees to clean up',
    });
  const [main, ...linked] = await listWorktrees(where);
  if (!main) throw new LanesError('E_GIT', `git lists no worktree for ${where}`);
  // Other hosts' sessions work in directories of their own machines, not these.
  const listed = await ctx.store.listSessions({ includeEnded: options.openOnly !== true });
  const extra = (options.also ?? []).filter((a) => !listed.some((s) => s.id === a.id));
  const sessions = [...listed, ...extra].filter((s) => s.owner.host === ctx.host);
  const mainWorktree = real(main.path) ?? main.path;
  const open = linked.filter((w) => !w.bare);
  return {
    mainWorktree,
    commonDir: real(repo.commonDir) ?? repo.commonDir,
    home: real(homedir()),
    lanesDir: await lanesWorktreeDir(where, repo.commonDir),
    linked: open,
    worktreeReals: [mainWorktree, ...open.map((w) => real(w.path) ?? w.path)],
    sessions,
    states: await ctx.statesOf(sessions),
    paths: new Map(
      sessions.map((s) => [
        s.id,
        { worktree: s.worktree && (real(s.worktree) ?? s.worktree), cwd: real(s.cwd) ?? s.cwd },
      ]),
    ),
    cwds: scanProcessCwds(),
    store: ctx.store.info.location,
    host: ctx.host,
  };
}

/** The linked worktree of the scene at `path` (compared as real paths), if any. */
export function linkedAt(scene: WorktreeScene, path: string): WorktreeEntry | undefined {
  const at = real(path);
  const i = scene.worktreeReals.indexOf(at ?? '');
  return i > 0 ? scene.linked[i - 1] : undefined;
}

/**
 * Who asks for a removal, left out of its live checks: sessions; processes (`pids`: these alone,
 * such as the shell that typed the command); process trees (`trees`: an agent with its shells and servers).
 */
export interface Askers {
  sessions?: ReadonlySet<string>;
  pids?: ReadonlySet<number>;
  trees?: ReadonlySet<number>;
}

export interface WorktreeFacts extends DeletionFacts {
  entry: WorktreeEntry;
  made: MadeByLanes | null;
  /** This host's sessions that worked in it, newest first. */
  sessions: SessionRecord[];
}

/**
 * The deletion facts of one worktree. `ignore` leaves out who asks: the session ending (its own
 * directory) and the processes of the asker (lanes itself, an agent removing its own worktree).
 */
export function factsOf(scene: WorktreeScene, entry: WorktreeEntry, ignore: Askers = {}): WorktreeFacts {
  const at = real(entry.path);
  let symlink = false;
  try {
    symlink = lstatSync(entry.path).isSymbolicLink();
  } catch {
    // missing: said by real === null
  }
  const uses = (s: SessionRecord): boolean => {
    const p = scene.paths.get(s.id);
    return at !== null && p !== undefined && (p.worktree === at || within(p.cwd, at));
  };
  const sessions = scene.sessions.filter(uses).sort((a, b) => b.createdAt - a.createdAt);
  const live = sessions.filter((s) => scene.states.get(s.id)?.state === 'live' && !ignore.sessions?.has(s.id));
  const made = at ? madeByLanes(entry.path) : null;
  const older = madeByOlderLanes(entry.path, entry.branch, scene.lanesDir, sessions.length > 0);
  const skip = askers(scene, new Set([process.pid, ...(ignore.trees ?? [])]), new Set(ignore.pids ?? []));
  const inside = scene.cwds && at ? scene.cwds.processes.filter((p) => !skip(p.pid) && within(p.cwd, at)) : null;
  return {
    path: entry.path,
    real: at,
    symlink,
    mainWorktree: scene.mainWorktree,
    commonDir: scene.commonDir,
    home: scene.home,
    madeByLanes: made !== null || older,
    movedFrom: made?.path !== undefined && at !== null && made.path !== at ? made.path : null,
    nestedWorktrees: scene.worktreeReals.filter((w) => at !== null && w !== at && within(w, at)),
    // A store that knows its sessions is the right one (lanes store copy moves them, not the markers).
    otherStore: made?.store !== undefined && made.store !== scene.store && sessions.length === 0 ? made.store : null,
    locked: entry.locked && !staleLanesLock(entry.lockReason, scene.host) ? (entry.lockReason ?? '') : null,
    liveSessions: live.map((s) => s.id + (s.label ? ` (${s.label})` : s.agent ? ` (${s.agent})` : '')),
    // Named by their command line (a few, read only for those found): `node` alone tells nobody which.
    processes: inside
      ? inside.map((p) => `pid ${p.pid} ${(readCommandLine(p.pid) || p.name).slice(0, 80)}`.trim())
      : null,
    entry,
    made,
    sessions,
  };
}

/** Whether a process is one of `pids`, or one of `trees` or runs under one. */
function askers(scene: WorktreeScene, trees: ReadonlySet<number>, pids: ReadonlySet<number>): (pid: number) => boolean {
  const parent = new Map((scene.cwds?.processes ?? []).map((p) => [p.pid, p.ppid]));
  return (pid) => {
    if (pids.has(pid)) return true;
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) if (trees.has(p)) return true;
    return false;
  };
}
