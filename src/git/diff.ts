import { git } from './run.js';

// What a session changed (lanes diff, issue 49): a diff between two trees or commits, read as
// per-file records. Every call compares objects only (commit or tree ids, never the working tree
// or the index), so no index is read, refreshed or written: the working state is first captured as
// a tree in a private index (snapshot.ts captureWorktree).

export type DiffStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface DiffFile {
  path: string;
  /** The path before a rename. */
  oldPath?: string;
  status: DiffStatus;
  additions: number;
  deletions: number;
  /** Git found the file binary: no line counts (0 and 0). */
  binary: boolean;
  /** The file's patch header as git writes it (`diff --git`, modes, rename, `---`/`+++`); only when asked. */
  header?: string;
  /** The file's part of the patch from its first hunk on (empty for a binary file or a pure rename); only when asked. */
  hunks?: string;
}

// The user's configuration must not change what is read: diff.relative would cut paths to the
// cwd, color.diff=always would colour a pipe, diff.external/textconv drivers would run programs and
// change the text, diff.noprefix/mnemonicPrefix would change the headers split on.
const FIXED = [
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-relative',
  '-M',
  '--src-prefix=a/',
  '--dst-prefix=b/',
];

const STATUS: Record<string, DiffStatus> = { A: 'added', D: 'deleted', R: 'renamed', C: 'added' };

/** The merge-base of two commits, or null when they share no history. */
export async function mergeBase(cwd: string, a: string, b: string): Promise<string | null> {
  try {
    return (await git(['merge-base', a, b], { cwd })).trim() || null;
  } catch {
    return null; // exit 1: no common ancestor
  }
}

/** The files that differ between `from` and `to` (commits or trees), each with its status and line counts; hunks with `patch`. */
export async function diffFiles(cwd: string, from: string, to: string, patch = false): Promise<DiffFile[]> {
  const [raw, numstat, text] = await Promise.all([
    git(['diff', ...FIXED, '--raw', '-z', from, to, '--'], { cwd }),
    git(['diff', ...FIXED, '--numstat', '-z', from, to, '--'], { cwd }),
    patch ? git(['diff', ...FIXED, '--patch', from, to, '--'], { cwd }) : Promise.resolve(''),
  ]);
  const files = parseRaw(raw);
  const counts = parseNumstat(numstat);
  // The three outputs list the same diff queue in the same order.
  const chunks = patch ? splitPatch(text) : [];
  return files.map((f, i) => {
    const c = counts[i];
    const file: DiffFile = {
      ...f,
      additions: c?.additions ?? 0,
      deletions: c?.deletions ?? 0,
      binary: c?.binary ?? false,
    };
    if (patch) {
      const chunk = chunks[i] ?? '';
      const at = chunk.search(/^@@ /m);
      file.header = at < 0 ? chunk : chunk.slice(0, at);
      file.hunks = at < 0 ? '' : chunk.slice(at);
    }
    return file;
  });
}

/** The paths whose content differs between `from` and `to`, renames taken apart (both of their paths listed). */
export async function changedPaths(cwd: string, from: string, to: string): Promise<Set<string>> {
  const out = await git(
    ['diff', '--no-ext-diff', '--no-relative', '--no-renames', '--name-only', '-z', from, to, '--'],
    {
      cwd,
    },
  );
  return new Set(out.split('\0').filter(Boolean));
}

/** `--raw -z`: `:mode mode sha sha STATUS\0path\0` (two paths for a rename or copy). */
function parseRaw(out: string): Omit<DiffFile, 'additions' | 'deletions' | 'binary'>[] {
  const parts = out.split('\0');
  const files: Omit<DiffFile, 'additions' | 'deletions' | 'binary'>[] = [];
  for (let i = 0; i < parts.length;) {
    const head = parts[i++] ?? '';
    if (!head.startsWith(':')) continue;
    const letter = head.split(' ')[4]?.[0] ?? 'M';
    const status = STATUS[letter] ?? 'modified'; // M, T (type change), U
    if (letter === 'R' || letter === 'C') {
      const oldPath = parts[i++] ?? '';
      const path = parts[i++] ?? '';
      files.push(letter === 'R' ? { path, oldPath, status } : { path, status });
    } else files.push({ path: parts[i++] ?? '', status });
  }
  return files;
}

/** `--numstat -z`: `add\tdel\tpath\0`, or for a rename `add\tdel\t\0old\0new\0`; `-\t-` for a binary file. */
function parseNumstat(out: string): { additions: number; deletions: number; binary: boolean }[] {
  const parts = out.split('\0');
  const counts: { additions: number; deletions: number; binary: boolean }[] = [];
  for (let i = 0; i < parts.length;) {
    const rec = parts[i++] ?? '';
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(rec);
    if (!m) continue;
    if (m[3] === '') i += 2; // a rename's two paths follow
    const binary = m[1] === '-';
    counts.push({ additions: binary ? 0 : Number(m[1]), deletions: binary ? 0 : Number(m[2]), binary });
  }
  return counts;
}

/** The patch cut into one chunk per file, at each `diff --git` header. */
function splitPatch(text: string): string[] {
  const chunks: string[] = [];
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith('diff --git ') || chunks.length === 0) chunks.push(line);
    else chunks[chunks.length - 1] += line;
  }
  return text ? chunks : [];
}
