import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { copyIfNewer } from './copy-if-newer.js';
import { makeDirsSync } from './make-dirs.js';

// Where Gemini CLI keeps a conversation, so a session moved to another seat (another
// GEMINI_CLI_HOME) can resume it there. Read from the released CLI 0.61.0's bundle:
// - its home is $GEMINI_CLI_HOME/.gemini (else ~/.gemini);
// - a project's chats are in .gemini/tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the
//   session id>.jsonl, the first line {sessionId, projectHash, startTime, lastUpdated, kind}; a
//   subagent's in chats/<parent session id>/<its id>.jsonl; a resumed chat is appended to, and
//   another file of the same id may begin (Gemini CLI keeps the latest of an id);
// - <slug> is the project's short name in .gemini/projects.json ({projects: {"/abs/cwd": slug}}),
//   owned by a marker, tmp/<slug>/.project_root, holding the project's path; a project the
//   registry does not know takes the slug whose marker names it, else a new one from the
//   directory's base name (name, name-1, …) that no marker of another project holds;
// - `--resume ID` looks the full session id up among that project's chats only.
// So the chat is copied into the slug the new home gives that project (its registry's, a marker's,
// or one lanes claims with a marker the way Gemini CLI would), never over a copy as new or newer (core/copy-if-newer.ts).

const CHAT = /^session-.+\.jsonl?$/;

/** The Gemini CLI home's directories of projects (tmp/<slug>). */
const tmpOf = (home: string) => join(home, '.gemini', 'tmp');

const list = (dir: string) => {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // no such directory (yet)
  }
};

const read = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

interface ChatHead {
  sessionId: string;
  startTime: number;
  kind: string | null;
}

/** The first 64 KiB of a file: a chat's first record is its metadata, a short line. */
function head(file: string): string | null {
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      return buf.toString('utf8', 0, readSync(fd, buf, 0, buf.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** A chat file's first record (a .json chat of older versions: the whole file). */
function chatHead(file: string): ChatHead | null {
  const text = file.endsWith('.json') ? read(file) : head(file);
  if (text === null) return null;
  const nl = text.indexOf('\n');
  for (const json of [nl < 0 ? text : text.slice(0, nl), text]) {
    try {
      const v = JSON.parse(json) as { sessionId?: unknown; startTime?: unknown; kind?: unknown };
      if (typeof v.sessionId !== 'string') continue;
      const start = typeof v.startTime === 'string' ? Date.parse(v.startTime) : NaN;
      return { sessionId: v.sessionId, startTime: start, kind: typeof v.kind === 'string' ? v.kind : null };
    } catch {
      // a first line cut short, or a .json chat: the whole text next
    }
  }
  return null;
}

/** The project a slug directory belongs to, by its marker (null: none, an older hash-named directory). */
const ownerOf = (slugDir: string) => read(join(slugDir, '.project_root'))?.trim() || null;

export interface GeminiChat {
  /** tmp/<slug> of the home the chat is in. */
  slugDir: string;
  /** The chat's files and its subagents' directory (absolute). */
  files: string[];
}

/** Conversation `id`'s files in a Gemini CLI home, per project directory. */
export function geminiChats(home: string, id: string): GeminiChat[] {
  const out: GeminiChat[] = [];
  for (const slug of list(tmpOf(home)).filter((e) => e.isDirectory())) {
    const slugDir = join(tmpOf(home), slug.name);
    const chats = join(slugDir, 'chats');
    const files: string[] = [];
    for (const e of list(chats)) {
      const p = join(chats, e.name);
      if (e.isDirectory() && e.name === id) files.push(p);
      else if (e.isFile() && CHAT.test(e.name) && e.name.includes(`-${id.slice(0, 8)}.json`))
        if (chatHead(p)?.sessionId === id) files.push(p);
    }
    if (files.some((f) => CHAT.test(f.split('/').pop() ?? ''))) out.push({ slugDir, files });
  }
  return out;
}

/**
 * The main conversation begun in a Gemini CLI home since `since` (ms) for project `cwd`, or null
 * when there is none, or more than one (another session on the same login: not a guess to resume).
 */
export function geminiChatSince(home: string, since: number, cwd: string): string | null {
  const ids = new Set<string>();
  const project = resolve(cwd);
  for (const slug of list(tmpOf(home)).filter((e) => e.isDirectory())) {
    const slugDir = join(tmpOf(home), slug.name);
    if (ownerOf(slugDir) !== project) continue;
    for (const e of list(join(slugDir, 'chats')).filter((f) => f.isFile() && CHAT.test(f.name))) {
      const p = join(slugDir, 'chats', e.name);
      if (mtime(p) < since) continue;
      const h = chatHead(p);
      // A resumed chat begun before the run is another run's conversation, not one begun now.
      if (h && h.kind !== 'subagent' && !(h.startTime < since)) ids.add(h.sessionId);
    }
  }
  return ids.size === 1 ? ([...ids][0] as string) : null;
}

function mtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Copies Gemini CLI conversation `id` from home `from` to home `to` (each a GEMINI_CLI_HOME) into
 * the project directory the new home uses for the same project; returns what it copied.
 */
export function carryGeminiChat(id: string, from: string, to: string): string[] {
  const copied: string[] = [];
  for (const chat of geminiChats(from, id)) {
    const slug = chat.slugDir.split('/').pop() as string;
    const project = ownerOf(chat.slugDir);
    const target = project ? slugFor(to, project, slug) : join(tmpOf(to), slug);
    if (!target) continue;
    for (const file of chat.files) {
      const dest = join(target, 'chats', file.split('/').pop() as string);
      if (copyIfNewer(file, dest)) copied.push(dest);
    }
  }
  return copied;
}

/**
 * The directory home `to` keeps project `project`'s chats in: the slug its registry names (when no
 * marker says another project owns it), else the one whose marker names the project, else a slug
 * lanes claims as Gemini CLI would (`slug`, then slug-1, …: free in the registry and on disk, its
 * marker written first, exclusively). Null when none could be claimed.
 */
function slugFor(to: string, project: string, slug: string): string | null {
  const tmp = tmpOf(to);
  const gemini = join(to, '.gemini');
  const bases = [tmp, join(gemini, 'history')];
  const owners = (s: string) => bases.map((b) => ownerOf(join(b, s)));
  let registry: Record<string, string> = {};
  try {
    const parsed = JSON.parse(read(join(gemini, 'projects.json')) ?? '{}') as { projects?: unknown };
    if (parsed.projects && typeof parsed.projects === 'object') registry = parsed.projects as Record<string, string>;
  } catch {
    // Gemini CLI resets a registry it cannot parse: no entry to follow
  }
  const named = registry[project];
  if (typeof named === 'string' && /^[a-z0-9-]+$/.test(named) && owners(named).every((o) => !o || o === project))
    return join(tmp, named);
  for (const b of bases)
    for (const e of list(b).filter((d) => d.isDirectory()))
      if (ownerOf(join(b, e.name)) === project) return join(tmp, e.name);
  const taken = new Set(Object.values(registry));
  for (let n = 0; n < 100; n++) {
    const candidate = n === 0 ? slug : `${slug}-${n}`;
    if (taken.has(candidate) || owners(candidate).some((o) => o !== null)) continue;
    const dir = join(tmp, candidate);
    if (existsSync(dir) && list(dir).length > 0) continue; // someone's directory without a marker
    try {
      makeDirsSync(dir, 0o700);
      writeFileSync(join(dir, '.project_root'), project, { flag: 'wx', mode: 0o600 });
      return dir;
    } catch {
      if (ownerOf(dir) === project) return dir; // claimed at the same moment, for the same project
    }
  }
  return null;
}
