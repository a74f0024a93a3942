// lanes diff's text: where the work was read, a --stat table as git draws it (with the uncommitted
// files marked), and the patch, coloured on a terminal (picocolors: NO_COLOR, FORCE_COLOR, a pipe).
import type { SessionDiff, SessionDiffFile } from '../index.js';
import { pc } from './output.js';

const short = (ref: string | null) => (ref ? ref.replace(/^refs\/heads\//, '') : null);

/** One line saying which session, read from where, against what. */
export function diffHeading(d: SessionDiff, name: string): string {
  const who = name === d.session ? d.session : `${d.session} (${name})`;
  const from =
    d.source === 'worktree'
      ? `its worktree ${d.worktree}${d.branch ? ` on ${short(d.branch)}` : ' (detached HEAD)'}`
      : `its branch ${short(d.branch)}${d.snapshot ? ` and last snapshot ${d.snapshot}` : ''}`;
  const against = d.target ? `against ${d.target} at ${d.base.slice(0, 10)} (merge-base)` : 'against its HEAD';
  const uncommitted = d.files.filter((f) => f.uncommitted).length;
  const counts = `${d.files.length} file(s) changed, ${uncommitted} uncommitted`;
  return `${pc.bold(`lanes diff ${who}`)}: ${from}, ${against}: ${counts}\n`;
}

const label = (f: SessionDiffFile) => (f.oldPath !== undefined ? `${f.oldPath} => ${f.path}` : f.path);
const LETTER = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R' } as const;

/** git's --stat: path | count +++--- per file, then the total line; a `*` marks uncommitted files. */
export function statText(files: SessionDiffFile[], width: number): string {
  if (files.length === 0) return 'no changes\n';
  const names = files.map((f) => `${LETTER[f.status]} ${label(f)}${f.uncommitted ? ' *' : ''}`);
  const nameWidth = Math.max(...names.map((n) => n.length));
  const counts = files.map((f) => (f.binary ? 'Bin' : String(f.additions + f.deletions)));
  const countWidth = Math.max(...counts.map((c) => c.length));
  const most = Math.max(1, ...files.map((f) => f.additions + f.deletions));
  const room = Math.max(10, width - nameWidth - countWidth - 6);
  const lines = files.map((f, i) => {
    const total = f.additions + f.deletions;
    const scale = most > room ? room / most : 1;
    let plus = Math.round(f.additions * scale);
    let minus = Math.round(f.deletions * scale);
    if (f.additions > 0 && plus === 0) plus = 1;
    if (f.deletions > 0 && minus === 0) minus = 1;
    const bar = f.binary ? '' : ` ${plus ? pc.green('+'.repeat(plus)) : ''}${minus ? pc.red('-'.repeat(minus)) : ''}`;
    return ` ${names[i]!.padEnd(nameWidth)} | ${counts[i]!.padStart(countWidth)}${total || f.binary ? bar : ''}`;
  });
  const add = files.reduce((n, f) => n + f.additions, 0);
  const del = files.reduce((n, f) => n + f.deletions, 0);
  const marked = files.filter((f) => f.uncommitted).length;
  const total =
    ` ${files.length} file${files.length === 1 ? '' : 's'} changed, ${add} insertion${add === 1 ? '' : 's'}(+), ` +
    `${del} deletion${del === 1 ? '' : 's'}(-)${marked ? `; * ${marked} uncommitted` : ''}`;
  return [...lines, total].join('\n') + '\n';
}

/** The patch as git prints it, coloured on a terminal. */
export function patchText(files: SessionDiffFile[]): string {
  return files.map((f) => colourHeader(f.header ?? '') + colourHunks(f.hunks ?? '')).join('');
}

function colourHeader(header: string): string {
  if (!pc.isColorSupported) return header;
  return header
    .split('\n')
    .map((l) => (l ? pc.bold(l) : l))
    .join('\n');
}

function colourHunks(hunks: string): string {
  if (!pc.isColorSupported) return hunks;
  return hunks
    .split('\n')
    .map((l) => (l.startsWith('@@') ? pc.cyan(l) : l.startsWith('+') ? pc.green(l) : l.startsWith('-') ? pc.red(l) : l))
    .join('\n');
}
