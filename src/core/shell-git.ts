// Finds the git commands in a shell command line that change a worktree's shared state: the index
// (add, commit, stash, reset, restore) or files other people may have changed (checkout -- PATHS,
// restore). Used to stop them in a worktree that another live session shares. A small tokenizer,
// not a shell: quotes, escapes, `&& || ; | &` and parentheses split commands; `cd DIR`, `git -C
// DIR` and `sh -c '…'` are followed. What it cannot read it does not flag (the policy then allows).

export type RiskyGitVerb = 'add' | 'commit' | 'stash' | 'reset' | 'checkout' | 'restore';

export interface RiskyGit {
  verb: RiskyGitVerb;
  /** The command words as written, for the message. */
  words: string[];
  /** The directory it runs in, relative to the hook's cwd when the command said (cd DIR / -C DIR). */
  dir: string | null;
}

const SEPARATORS = new Set(['&&', '||', ';', '|', '&', '(', ')', '\n']);

export function tokenize(line: string): string[] {
  const out: string[] = [];
  let word = '';
  let inWord = false;
  const flush = () => {
    if (inWord) out.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? line.length : end);
      inWord = true;
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      inWord = true;
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) i++;
        word += line[i];
      }
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (c === '#' && !inWord) {
      const nl = line.indexOf('\n', i);
      i = nl < 0 ? line.length : nl - 1;
    } else if (c === ' ' || c === '\t') {
      flush();
    } else if ('&|;()\n'.includes(c)) {
      flush();
      const two = line.slice(i, i + 2);
      if (two === '&&' || two === '||') {
        out.push(two);
        i++;
      } else out.push(c);
    } else if (c === '$' && line[i + 1] === '(') {
      flush();
      out.push('(');
      i++;
    } else if (c === '`') {
      flush();
      out.push('(');
    } else {
      word += c;
      inWord = true;
    }
  }
  flush();
  return out;
}

const PREFIXES = new Set(['sudo', 'command', 'exec', 'time', 'nohup', 'nice', 'builtin']);
const GIT_VALUE_OPTS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env']);
const READ_ONLY_STASH = new Set(['list', 'show']);

export function riskyGitCommands(line: string, depth = 0): RiskyGit[] {
  const found: RiskyGit[] = [];
  let cdDir: string | null = null;
  let segment: string[] = [];
  const tokens = tokenize(line);
  tokens.push(';');
  for (const t of tokens) {
    if (!SEPARATORS.has(t)) {
      segment.push(t);
      continue;
    }
    let words = segment;
    segment = [];
    while (
      words.length > 0 &&
      (PREFIXES.has(words[0] as string) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string))
    )
      words = words.slice(1);
    if (words[0] === 'env') {
      words = words.slice(1);
      while (
        words.length > 0 &&
        (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string) || (words[0] as string).startsWith('-'))
      )
        words = words.slice(1);
    }
    const head = words[0];
    if (!head) continue;
    if (head === 'cd') {
      cdDir = words[1] ?? null;
      continue;
    }
    const base = head.split('/').pop() ?? head;
    if (/^(ba|z|da|k)?sh$/.test(base) && depth < 3) {
      const c = words.findIndex((w) => /^-\w*c$/.test(w));
      const script = c > 0 ? words[c + 1] : undefined;
      if (script) for (const r of riskyGitCommands(script, depth + 1)) found.push({ ...r, dir: r.dir ?? cdDir });
      continue;
    }
    if (base !== 'git') continue;
    let i = 1;
    let dir = cdDir;
    while (i < words.length && (words[i] as string).startsWith('-')) {
      const opt = words[i] as string;
      if (GIT_VALUE_OPTS.has(opt)) {
        if (opt === '-C')
          dir = dir && !(words[i + 1] ?? '').startsWith('/') ? `${dir}/${words[i + 1] ?? ''}` : (words[i + 1] ?? null);
        i += 2;
      } else i++;
    }
    const verb = words[i];
    const rest = words.slice(i + 1);
    const risky =
      verb === 'add' ||
      verb === 'commit' ||
      verb === 'reset' ||
      verb === 'restore' ||
      (verb === 'stash' && !READ_ONLY_STASH.has(rest[0] ?? '')) ||
      (verb === 'checkout' && (rest.includes('--') || rest.includes('.')));
    if (risky) found.push({ verb: verb as RiskyGitVerb, words, dir });
  }
  return found;
}
