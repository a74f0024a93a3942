import { tokenize } from '../../core/shell-git.js';
import type { Step } from './step.js';

// The shell commands a step runs: a shell step is its own command line; a Python or JavaScript
// statement runs one when it calls a process (os.system, subprocess.*, execSync, spawn, execa, zx's
// $`…`) — its string literals joined (`subprocess.run(["git", "add", "-A"])` is `git add -A`).
// Each command is split into simple commands (words), as the shell would run them.

const EXEC =
  /\b(os\.system|os\.popen|subprocess\.\w+|check_output|check_call|execSync|execFileSync|execFile|spawnSync|spawn|exec|execa|execaSync|execaCommand|shell|sh|run_command)\s*\(|\$`/;

export function commandLines(step: Step): string[] {
  if (step.lang === 'sh') return [step.text];
  if (step.lang === 'prose') return [];
  const m = EXEC.exec(step.text);
  if (!m || !step.strings.length) return [];
  if (m[0] === '$`') return [step.strings[0] ?? ''];
  const args = argumentsOf(step.text, m.index + m[0].length);
  // ['git', 'add', x] as its words (a variable is a word too: `$x`); 'git', [...] as spawn takes
  // it; a string as the shell line it is.
  const words = (a: Arg | undefined) => (Array.isArray(a) ? a.map(quote) : null);
  const line =
    words(args[0])?.join(' ') ??
    (typeof args[0] === 'string' && words(args[1]) ? [quote(args[0]), ...words(args[1])!].join(' ') : null) ??
    (typeof args[0] === 'string' ? args[0] : null);
  return line === null ? [] : [line];
}

type Arg = string | null | Arg[];

const quote = (a: Arg): string =>
  typeof a === 'string' ? `'${a.replace(/'/g, `'\\''`)}'` : a === null ? '$x' : a.map(quote).join(' ');

/** The arguments of a call from `at` (just after its `(`): string literals, lists of them, null for anything else. */
function argumentsOf(text: string, at: number): Arg[] {
  const out: Arg[] = [];
  let i = at;
  const value = (): Arg => {
    while (text[i] === ' ') i++;
    const c = text[i];
    if (c === '[') {
      i++;
      const list: Arg[] = [];
      while (i < text.length && text[i] !== ']') {
        list.push(value());
        while (text[i] === ' ' || text[i] === ',') i++;
      }
      i++;
      return list;
    }
    const prefix = /^[fbrFBR]{0,2}(["'`])/.exec(text.slice(i, i + 3));
    if (prefix) {
      const q = prefix[1]!;
      const from = i + prefix[0].length;
      let j = from;
      while (j < text.length && text[j] !== q) j += text[j] === '\\' ? 2 : 1;
      i = j + 1;
      return text.slice(from, j);
    }
    // Anything else (a variable, a call, keyword=…): to the next comma or bracket at its depth.
    for (let depth = 0; i < text.length; i++) {
      const d = text[i]!;
      if ('([{'.includes(d)) depth++;
      else if (')]}'.includes(d)) {
        if (depth === 0) break;
        depth--;
      } else if (d === ',' && depth === 0) break;
    }
    return null;
  };
  while (i < text.length && text[i] !== ')') {
    const before = i;
    out.push(value());
    while (text[i] === ' ' || text[i] === ',') i++;
    if (i === before) break;
  }
  return out;
}

const SEP = new Set(['&&', '||', ';', '|', '&', '(', ')', '\n']);
const PREFIX = new Set([
  'sudo',
  'command',
  'exec',
  'time',
  'nohup',
  'nice',
  'builtin',
  'then',
  'do',
  'else',
  '{',
  '}',
  '!',
]);

/** The simple commands of a command line, each its words after prefixes and variable assignments (`sh -c '…'` followed). */
export function simpleCommands(line: string, depth = 0): string[][] {
  const out: string[][] = [];
  let seg: string[] = [];
  for (const t of [...tokenize(line), ';']) {
    if (!SEP.has(t)) {
      seg.push(t);
      continue;
    }
    let w = seg;
    seg = [];
    while (w.length && (PREFIX.has(w[0]!) || /^[A-Za-z_]\w*=/.test(w[0]!))) w = w.slice(1);
    if (w[0] === 'env')
      w = w.slice(1).filter((x, i, a) => !(/^[A-Za-z_]\w*=/.test(x) && a.slice(0, i).every((y) => /=/.test(y))));
    if (!w.length) continue;
    const base = w[0]!.split('/').pop()!;
    if (/^(ba|z|da|k)?sh$/.test(base) && depth < 3) {
      const c = w.findIndex((x) => /^-\w*c$/.test(x));
      if (c > 0 && w[c + 1]) {
        out.push(...simpleCommands(w[c + 1]!, depth + 1));
        continue;
      }
    }
    out.push(w);
  }
  return out;
}

/** A git command's subcommand and its arguments (`git -C dir commit -am x` → ['commit', '-am', 'x']), or null. */
export function gitArgs(words: string[]): string[] | null {
  if ((words[0]?.split('/').pop() ?? '') !== 'git') return null;
  let i = 1;
  while (i < words.length && words[i]!.startsWith('-'))
    i += ['-C', '-c', '--git-dir', '--work-tree'].includes(words[i]!) ? 2 : 1;
  return words.slice(i);
}
