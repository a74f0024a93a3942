import { commandLines, simpleCommands } from '../commands.js';
import { builtPaths, isLockPath, isUserConfig, pathsInText, sharedPath } from '../paths.js';
import type { Step } from '../step.js';
import type { Finding } from './finding.js';

// Fixed-path handoffs (the first incident): a shared fixed path that one step writes and another
// reads — anywhere in the repository — or that an instruction file documents (an agent that
// follows the text writes or reads it). Every line that writes, reads or documents it is a finding:
// the fix is at each of them (`lanes path NAME` / `lanes handoff`). A path only written (a log) or
// only cleared is no handoff, nor is a lock file.

type Use = 'write' | 'read' | 'doc';

interface Seen {
  path: string;
  file: string;
  line: number;
  use: Use;
}

const PY_WRITE =
  /open\([^)]*,\s*["'][wax]|\.write_(text|bytes)\(|json\.dump\(|\.to_(csv|json)\(|shutil\.copy\w*\([^,]+,/;
const PY_READ = /open\(|\.read_(text|bytes)\(|json\.load\(|\.exists\(|os\.path\.exists\(/;
const JS_WRITE = /write(File|FileSync)\(|appendFile(Sync)?\(|createWriteStream\(|copyFile(Sync)?\([^,]+,/;
const JS_READ = /read(File|FileSync)\(|createReadStream\(|existsSync\(|require\(|import\(/;
const notHandoff = (p: string) => isLockPath(p) || isUserConfig(p);
/** Prose that says to put something there or take it from there (not a path named in passing)… */
const HANDS =
  /\b(writ(e|es|ten|ing)|wrote|sav(e|es|ed|ing)|stor(e|es|ed|ing)|puts?|putting|dump(s|ed|ing)?|output(s|ting)?|read(s|ing)?|load(s|ed|ing)?|leav(e|es|ing)|cop(y|ies|ying)|pass(es|ed|ing)? it|hand(s|ed)? (it|them) over|pick(s|ed)? (it|them) up)\b/i;
/** …and not a rule against it. */
const FORBIDS = /\b(never|don'?t|do not|must not|avoid|instead of|not to)\b/i;
const CLEAR = /\b(os\.remove|os\.unlink|unlink|rmtree|rmSync|unlinkSync|rm)\s*\(/;

function shellUses(step: Step): Seen[] {
  const out: Seen[] = [];
  for (const line of commandLines(step))
    for (const words of simpleCommands(line)) {
      const head = words[0]!.split('/').pop()!;
      if (head === 'rm' || head === 'truncate' || head === 'flock') continue;
      words.forEach((w, i) => {
        const redirect = /^\d?>>?/.exec(w);
        const target = redirect ? w.slice(redirect[0].length) || words[i + 1] || '' : w;
        if (redirect && !w.slice(redirect[0].length) && i + 1 < words.length) return; // the next word is read below as the target
        const p = sharedPath(target);
        if (!p || notHandoff(p)) return;
        const prev = words[i - 1] ?? '';
        const written =
          !!redirect ||
          (['-o', '--output', '-O', '--output-document'].includes(prev) && ['curl', 'wget'].includes(head)) ||
          /^\d?>>?$/.test(prev) ||
          head === 'tee' ||
          (['cp', 'mv', 'install', 'ln'].includes(head) && i === words.length - 1) ||
          head === 'touch';
        out.push({ path: p, file: step.file, line: step.line, use: written ? 'write' : 'read' });
      });
    }
  return out;
}

function codeUses(step: Step, names: Map<string, string>): Seen[] {
  const here = [...step.strings.map((s) => sharedPath(s)).filter((p): p is string => !!p), ...builtPaths(step.text)];
  // A statement that names a constant holding a shared path uses that path.
  for (const [name, p] of names) if (new RegExp(`\\b${name}\\b`).test(step.text) && !assigns(step, name)) here.push(p);
  const paths = [...new Set(here)].filter((p) => !notHandoff(p));
  if (!paths.length) return [];
  const py = step.lang === 'py';
  if (CLEAR.test(step.text)) return [];
  const use: Use | null =
    (py ? PY_WRITE : JS_WRITE).test(step.text) || opensToWrite(step)
      ? 'write'
      : (py ? PY_READ : JS_READ).test(step.text)
        ? 'read'
        : null;
  return use ? paths.map((path) => ({ path, file: step.file, line: step.line, use })) : [];
}

/** `open(…, "w")` however its path is built: its mode is one of its strings. */
export const opensToWrite = (step: Step): boolean =>
  /\bopen\(/.test(step.text) && step.strings.some((x) => /^[rwaxbt+]{1,4}$/.test(x) && /[wax+]/.test(x));

const assigns = (step: Step, name: string) =>
  new RegExp(`^(export\\s+)?(const|let|var)?\\s*${name}\\s*(:[^=]+)?=`).test(step.text);

/** Constants of a file that hold a shared path: `META = Path.home() / ".claude" / "meta.json"`. */
function constants(steps: Step[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of steps) {
    const m = /^(?:export\s+)?(?:const|let|var)?\s*([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=(?!=)/.exec(s.text);
    if (!m || s.lang === 'sh' || s.lang === 'prose') continue;
    const p = [...s.strings.map((x) => sharedPath(x)), ...builtPaths(s.text)].find((x): x is string => !!x);
    if (p && !notHandoff(p)) out.set(m[1]!, p);
  }
  return out;
}

/** The other places of a handoff, for the finding to name its counterpart: `read at b.py:9`. */
function others(uses: Seen[], self: Seen): string {
  const at = (u: Seen) => `${u.file}:${u.line}`;
  const say = (use: Use, verb: string) => {
    const o = [...new Set(uses.filter((u) => u.use === use && at(u) !== at(self)).map(at))];
    return o.length ? `${verb} at ${o.slice(0, 2).join(', ')}${o.length > 2 ? ` and ${o.length - 2} more` : ''}` : null;
  };
  const parts = [say('write', 'written'), say('read', 'read'), say('doc', 'documented')].filter(Boolean);
  return parts.length ? `also ${parts.join('; ')}` : `${self.use === 'doc' ? 'documented' : self.use} here`;
}

export function fixedPathHandoffs(steps: Step[]): Finding[] {
  const seen: Seen[] = [];
  const byFile = new Map<string, Step[]>();
  for (const s of steps) (byFile.get(s.file) ?? byFile.set(s.file, []).get(s.file)!).push(s);
  for (const [, fileSteps] of byFile) {
    const names = constants(fileSteps);
    for (const s of fileSteps) {
      if (s.lang === 'sh') seen.push(...shellUses(s).map((u) => (s.procedure ? { ...u, use: 'doc' as const } : u)));
      else if (s.lang === 'prose')
        for (const p of new Set([...pathsInText(s.text)]))
          if (!notHandoff(p) && HANDS.test(s.text) && !FORBIDS.test(s.text))
            seen.push({ path: p, file: s.file, line: s.line, use: 'doc' });
      if (s.lang === 'py' || s.lang === 'js') {
        const uses = codeUses(s, names);
        seen.push(...(s.procedure ? uses.map((u) => ({ ...u, use: 'doc' as const })) : uses));
      }
    }
  }
  const out: Finding[] = [];
  const byPath = new Map<string, Seen[]>();
  for (const u of seen) (byPath.get(u.path) ?? byPath.set(u.path, []).get(u.path)!).push(u);
  for (const [path, uses] of byPath) {
    const documented = uses.some((u) => u.use === 'doc');
    const handoff = documented || (uses.some((u) => u.use === 'write') && uses.some((u) => u.use === 'read'));
    if (!handoff) continue;
    const lines = new Set<string>();
    for (const u of uses) {
      const key = `${u.file}:${u.line}`;
      if (lines.has(key)) continue;
      lines.add(key);
      out.push({ check: 'fixed-path-handoff', file: u.file, line: u.line, what: `${path} (${others(uses, u)})` });
    }
  }
  return out;
}
