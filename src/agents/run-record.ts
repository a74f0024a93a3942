import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rolloutCwd, rolloutId, rolloutNotUsers, rolloutRanOut } from './codex/rollout.js';
import { geminiChatSince } from '../core/gemini-chats.js';
import { realDir } from '../core/real-dir.js';
import { debugLogRanOut, reportRanOut, reportTime } from './gemini/error-report.js';
import { head, tail } from './read-tail.js';

// What an agent lanes ran on a seat left in its own record, read by lanes' wrapper when the agent
// stops (cli/seated-run.ts), with or without lanes' hooks in the seat's login: which conversation
// it was (what to resume on the next seat) and whether its login ran out. Codex 0.171 has no hook
// that says so, and `codex exec` exits on the error: its rollout under the seat's CODEX_HOME does.
// Gemini CLI 0.61 runs no hook on it either: the error report it writes to its TMPDIR does, or
// (a Google login's quota it waits out) the debug log lanes asks it to keep (agentLog); its chat
// record under the seat's GEMINI_CLI_HOME names the conversation.

export interface RunRecord {
  /** The agent's conversation id (Codex's thread id: `codex resume ID`; Gemini CLI's session id), when its record names it. */
  conversation: string | null;
  ranOut: { why: string; message: string | null; resetAt: number | null } | null;
}

/** A file's time on a coarse file system is up to a second behind the write. */
const SLACK_MS = 2000;

/** Where each conversation's rollout was found: a run reads it every few seconds. */
const found = new Map<string, string>();

/**
 * The record of the agent's run in login directory `dir`, begun at `since` (ms, this machine's
 * clock, as the agent's own times): conversation `id` when it is known (a resumed one), else the
 * rollout written since then, the newest when there are several. Only an error written since then
 * is this run's (a conversation carried from a seat that ran out ends on that seat's error until
 * its next turn). Null for an agent lanes cannot read, or no such record.
 */
export function runRecord(
  agent: string,
  dir: string | null,
  id: string | null,
  since: number,
  tmp = tmpdir(),
  /** The agent's working directory: Gemini CLI keeps its chats per project. */
  cwd = process.cwd(),
  /** The agent's log as agentLog named it. */
  log: string | null = null,
): RunRecord | null {
  if (!dir) return null;
  if (agent === 'gemini') return geminiRecord(dir, id, since, tmp, cwd, log);
  if (agent !== 'codex') return null;
  const sessions = join(dir, 'sessions');
  const known = id ? found.get(`${sessions}\0${id}`) : undefined;
  const file =
    (known && mtime(known) > 0 ? known : null) ??
    (id ? rolloutOf(sessions, id) : newestRollout(sessions, since - SLACK_MS, cwd));
  const conversation = file ? rolloutId(file.split('/').pop() ?? '') : null;
  if (!file || !conversation) return null;
  found.set(`${sessions}\0${conversation}`, file);
  return { conversation, ranOut: rolloutRanOut(tail(file), Date.now(), since) };
}

/**
 * A Gemini CLI run on the login in `home`: its conversation (`id` when known, a resumed one; else
 * the one chat of project `cwd` begun since the run did) and, if it ran out, the error report
 * written in its TMPDIR (`tmp`) since then, else a quota it is waiting out, in its debug log `log`.
 */
function geminiRecord(
  home: string,
  id: string | null,
  since: number,
  tmp: string,
  cwd: string,
  log: string | null,
): RunRecord | null {
  const conversation = id ?? geminiChatSince(home, since - SLACK_MS, cwd);
  for (const e of entries(tmp)) {
    const at = e.isFile() ? reportTime(e.name) : null;
    if (at === null || at < since) continue;
    const ranOut = reportRanOut(head(join(tmp, e.name)), home, at);
    if (ranOut) return { conversation, ranOut };
  }
  const waiting = log ? debugLogRanOut(tail(log), since - SLACK_MS) : null;
  if (waiting) return { conversation, ranOut: waiting };
  return conversation ? { conversation, ranOut: null } : null;
}

/**
 * The log an agent's run is asked to keep for lanes to read, when it keeps none lanes can read by
 * default: Gemini CLI's debug log (GEMINI_DEBUG_LOG_FILE, which it appends to), always a file of
 * this run's own, lanes removing it after. A log the environment names is shared by every session
 * started from it: a quota line in it could be another session's, on another seat, so the run gets
 * its own all the same and what it wrote is appended to the named one at the end (`then`).
 * Its own is made in a fresh private directory (0700, mkdtemp): the log holds the conversation, and
 * a predictable name in a shared /tmp could be a symlink another user planted.
 */
export function agentLog(
  agent: string,
  env: NodeJS.ProcessEnv,
  tmp: string,
  run: string,
): { name: string; path: string; then: string | null } | null {
  if (agent !== 'gemini') return null;
  const named = env['GEMINI_DEBUG_LOG_FILE'];
  const then = named && named.startsWith('/') ? named : null;
  const safe = run.replace(/[^\w.-]+/g, '_').slice(0, 100);
  let dir: string;
  try {
    dir = mkdtempSync(join(tmp, `lanes-gemini-${safe}-`));
  } catch {
    return null; // no writable TMPDIR: the error reports are still read
  }
  return { name: 'GEMINI_DEBUG_LOG_FILE', path: join(dir, 'debug.log'), then };
}

const entries = (dir: string) => {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // no such directory (yet): nothing there
  }
};

/** sessions/YYYY/MM/DD/rollout-…-<id>.jsonl: a resumed conversation stays in the file it began in. */
function rolloutOf(sessions: string, id: string): string | null {
  for (const y of entries(sessions).filter((e) => e.isDirectory()))
    for (const m of entries(join(sessions, y.name)).filter((e) => e.isDirectory()))
      for (const d of entries(join(sessions, y.name, m.name)).filter((e) => e.isDirectory())) {
        const dir = join(sessions, y.name, m.name, d.name);
        const f = entries(dir).find((e) => e.isFile() && rolloutId(e.name) === id);
        if (f) return join(dir, f.name);
      }
  return null;
}

/**
 * The newest rollout written since `since` by a Codex run in `cwd`: Codex names its day folders by
 * the local date it began a conversation, so only the folders from the day before `since` on are
 * looked in. Another session on the same login (a seat of several slots) writes its rollout there
 * too; a rollout whose first record (session_meta) does not name this run's directory is not this
 * run's, however new (else a session could go on with another's conversation on its next seat);
 * nor is a sub-agent's (a review or a spawned thread of this very run, in the same directory).
 */
function newestRollout(sessions: string, since: number, cwd: string): string | null {
  const from = new Date(since - 86_400_000);
  const first = [from.getFullYear(), from.getMonth() + 1, from.getDate()];
  const here = realDir(cwd);
  let best: { file: string; at: number } | null = null;
  const days = (y: string, m: string) =>
    entries(join(sessions, y, m))
      .filter((e) => e.isDirectory() && compare([Number(y), Number(m), Number(e.name)], first) >= 0)
      .map((e) => join(sessions, y, m, e.name));
  for (const y of entries(sessions).filter((e) => e.isDirectory() && Number(e.name) >= first[0]!))
    for (const m of entries(join(sessions, y.name)).filter((e) => e.isDirectory()))
      for (const dir of days(y.name, m.name))
        for (const f of entries(dir).filter((e) => e.isFile() && rolloutId(e.name))) {
          const file = join(dir, f.name);
          const at = mtime(file);
          if (at < since || (best && at <= best.at)) continue;
          const meta = head(file, ROLLOUT_HEAD);
          if (sameDir(rolloutCwd(meta), here) && !rolloutNotUsers(meta)) best = { file, at };
        }
  return best?.file ?? null;
}

/** Codex records its directory as the system names it, or as `-C DIR` gave it (`.`, a symlink): resolved too. */
const sameDir = (recorded: string | null, here: string) =>
  recorded !== null && (recorded === here || realDir(recorded) === here);

/** session_meta comes first, cwd early in it (its instructions, which can be long, after). */
const ROLLOUT_HEAD = 16 * 1024;

const compare = (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;

function mtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
