import { commandLines, simpleCommands } from '../commands.js';
import type { Step } from '../step.js';
import type { Finding } from './finding.js';

// Unlocked clears (the Entire incident): state that code writes under a lock, deleted or emptied
// somewhere without that lock — a writer holding the lock is overwritten by nothing, or writes
// again into what was just cleared. What a write or clear acts on is named by its file's name
// (`state.json`) or the variable that holds it (`STATE_FILE`); a lock is held in a scope (a
// function, a script's top level) from the statement that takes it. The fix: the gate (`lanes
// state` / `lanes gate`), or the same lock around the clear.

const LOCK =
  /\b(flock|lockf|FileLock|SoftFileLock|portalocker|filelock|lockfile|proper-lockfile|properLockfile|withLock|acquireLock|acquire_lock|lock_file|lockSync|lanes\s+(gate|state\s+(set|clear|mutate)))\b|(^|[^a-z])_?lock(ed)?\s*\(|\.acquire\(|mkdir\s+["']?\$?\{?\w*LOCK/i;
const PY_JS_WRITE =
  /open\([^)]*,\s*["'][wa]|\.write_(text|bytes)\(|json\.dump\(|write(File|FileSync)\(|appendFile(Sync)?\(|rename(Sync)?\(|os\.replace\(/;
const PY_JS_CLEAR =
  /\b(os\.remove|os\.unlink|\.unlink|shutil\.rmtree|rmtree|rmSync|unlinkSync|fs\.rm|fs\.unlink|rm|unlink)\s*\(|\.truncate\(|write(File|FileSync)\([^,]+,\s*(["'`])\3\s*[,)]/;

/** A file's statements indexed for the questions below: by scope, and its assignments by name. */
interface Index {
  byScope: Map<string, Step[]>;
  /** `file\0scope\0name` → the statements that set it, in order. */
  sets: Map<string, Step[]>;
  /** `file\0scope` → the first line that takes a lock; `file\0line` of a header that takes one. */
  lockFrom: Map<string, number>;
  lockHeaders: Set<string>;
}

const ASSIGN = /^(?:export\s+)?(?:const|let|var)?\s*([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=(?!=)/;

function indexOf(code: Step[]): Index {
  const ix: Index = { byScope: new Map(), sets: new Map(), lockFrom: new Map(), lockHeaders: new Set() };
  for (const s of code) {
    const scope = `${s.file}\0${s.scope}`;
    const m = ASSIGN.exec(s.text);
    if (m) {
      const k = `${scope}\0${m[1]}`;
      (ix.sets.get(k) ?? ix.sets.set(k, []).get(k)!).push(s);
    }
    if (LOCK.test(s.text)) {
      if (!ix.lockFrom.has(scope)) ix.lockFrom.set(scope, s.line);
      ix.lockHeaders.add(`${s.file}\0${s.line}`);
    }
  }
  return ix;
}

/** Whether a lock is held at this statement: taken by it, earlier in its scope, or by its block's header. */
const locked = (ix: Index, s: Step) =>
  LOCK.test(s.text) ||
  (ix.lockFrom.get(`${s.file}\0${s.scope}`) ?? Infinity) <= s.line ||
  ix.lockHeaders.has(`${s.file}\0${s.scope}`);

/**
 * What a statement acts on: file names and path-like strings, identifiers that name a path, and
 * what the variables it uses were set to earlier in its scope (`path = dir / "state.json"`).
 */
function targets(step: Step, ix: Index, depth = 0): string[] {
  const own = namesIn(step);
  if (depth > 1) return own;
  for (const m of new Set(step.text.match(/\b[A-Za-z_$][\w$]*\b/g) ?? [])) {
    const set = (ix.sets.get(`${step.file}\0${step.scope}\0${m}`) ?? []).filter((o) => o.line < step.line);
    const last = set[set.length - 1];
    if (last && last !== step) own.push(...targets(last, ix, depth + 1));
  }
  return [...new Set(own)];
}

/** Variables every script has: naming one says nothing about which file. */
const COMMON = new Set([
  'HOME',
  'TMPDIR',
  'PWD',
  'USER',
  'PATH',
  'SHELL',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
]);

function namesIn(step: Step): string[] {
  const names = new Set<string>();
  const add = (raw: string) => {
    const v = raw.replace(/["'`]/g, '');
    // A path with its folders is that path; a bare file name or a variable's last part is a name.
    const parts = v.split('/').filter(Boolean);
    const base = parts.pop();
    if (!base) return;
    if (parts.length && !/[$]/.test(v) && /\.[A-Za-z]\w*$/.test(base)) names.add(v.replace(/^\.\//, ''));
    else if (/\.[A-Za-z]\w*$/.test(base) || /^[A-Z][A-Z0-9_]{2,}$|[a-z](Path|File|Dir)$|_(path|file|dir)$/.test(base))
      names.add(base);
  };
  for (const s of step.strings) add(s);
  for (const m of step.text.matchAll(/[\w$.]+/g)) {
    const id = m[0].split('.').pop()!;
    if (/^[A-Z][A-Z0-9_]{2,}$|[a-z](Path|File)$|_(path|file)$/.test(id)) names.add(id);
  }
  if (step.lang === 'sh')
    for (const words of simpleCommands(step.text))
      for (const w of words.slice(1)) {
        add(w.replace(/^\d?>>?/, ''));
        // The variable a path is built on ($STATE_FILE, "$DIR/state.json" names state.json too).
        const v = /^\$\{?([A-Za-z_]\w*)\}?$/.exec(w.replace(/^\d?>>?/, ''));
        if (v) names.add(v[1]!);
      }
  for (const c of COMMON) names.delete(c);
  return [...names];
}

function isClear(step: Step): boolean {
  if (step.lang === 'py' || step.lang === 'js') return PY_JS_CLEAR.test(step.text);
  if (step.lang !== 'sh') return false;
  return (
    commandLines(step).some((l) =>
      simpleCommands(l).some(
        (w) =>
          ['rm', 'truncate', 'unlink', 'shred'].includes(w[0]!.split('/').pop()!) ||
          (w[0] === ':' && w.some((x) => /^>/.test(x))),
      ),
    ) || /^\s*(:\s*)?>\s*\S/.test(step.text)
  );
}

function isWrite(step: Step): boolean {
  if (step.lang === 'py' || step.lang === 'js') return PY_JS_WRITE.test(step.text) && !PY_JS_CLEAR.test(step.text);
  return step.lang === 'sh' && /(^|[^<])>>?\s*\S|\b(tee|mv|cp)\b/.test(step.text) && !isClear(step);
}

export function unlockedClears(steps: Step[]): Finding[] {
  const code = steps.filter((s) => s.lang !== 'prose' && !s.procedure);
  const ix = indexOf(code);
  const guarded = new Map<string, Step>();
  for (const s of code)
    if (isWrite(s) && locked(ix, s)) for (const t of targets(s, ix)) if (!guarded.has(t)) guarded.set(t, s);
  const out: Finding[] = [];
  if (!guarded.size) return out;
  for (const s of code) {
    if (!isClear(s) || locked(ix, s)) continue;
    const hit = targets(s, ix).find((t) => guarded.has(t));
    if (hit)
      out.push({
        check: 'unlocked-clear',
        file: s.file,
        line: s.line,
        what: `${hit}, written under a lock at ${guarded.get(hit)!.file}:${guarded.get(hit)!.line}`,
      });
  }
  return out;
}
