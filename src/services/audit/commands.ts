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
  if (!EXEC.test(step.text) || !step.strings.length) return [];
  return [step.strings.join(' ')];
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
