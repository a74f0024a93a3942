import { constants } from 'node:fs';
import { childProcess } from '../../core/builtins.js';
import { LanesError } from '../../core/errors.js';
import { platformName } from '../../core/platform/select.js';
// fs.promises, not node:fs/promises: that module loads readline and watchers at import, a cost
// every command would pay through the library entry (measured on `lanes exec`).
import { existsSync, lstatSync, promises as fsp, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git } from '../../git/run.js';

export interface IncludeReport {
  files: number;
  bytes: number;
  ms: number;
  /** Listed entries not copied, and why (a link pointing outside the repository, a dangling link). */
  skipped: Array<{ path: string; reason: string }>;
}

export interface IncludeOptions {
  /** Copy the content of a listed link whose target lies outside the repository (user config opt-in). */
  linksOutside?: boolean;
}

/**
 * Copies into a new worktree the files of the main worktree that git IGNORES and that match
 * `.worktreeinclude` (gitignore syntax; the convention Claude Code, the Codex app, worktrunk and
 * ccmanager share): a .env, a node_modules. Copy-on-write (FICLONE on Linux, clonefile on macOS)
 * where the filesystem can, a plain copy otherwise; never a symlink to the original (a shared node_modules or .env would be
 * shared state again). Tracked files are git's business and are not touched.
 */
export async function copyWorktreeIncludes(
  from: string,
  to: string,
  options: IncludeOptions = {},
): Promise<IncludeReport | null> {
  const include = join(from, '.worktreeinclude');
  if (!existsSync(include)) return null;
  const started = performance.now();
  // --directory collapses a wholly ignored directory (node_modules/) into one entry.
  const list = async (args: string[]) =>
    (await git(['ls-files', '-z', '--others', '--ignored', '--directory', ...args], { cwd: from }))
      .split('\0')
      .filter(Boolean);
  const [ignored, matching] = await Promise.all([list(['--exclude-standard']), list([`--exclude-from=${include}`])]);
  // Ignored AND included: an included entry inside an ignored directory, or an ignored entry inside an included one.
  const picked = new Set<string>();
  for (const i of matching)
    for (const g of ignored) {
      if (i === g || (g.endsWith('/') && i.startsWith(g))) picked.add(i);
      else if (i.endsWith('/') && g.startsWith(i)) picked.add(g);
    }
  const entries = [...picked].filter((e) => ![...picked].some((o) => o !== e && o.endsWith('/') && e.startsWith(o)));
  let files = 0;
  let bytes = 0;
  const skipped: IncludeReport['skipped'] = [];
  for (const rel of entries) {
    const src = join(from, rel);
    const dst = join(to, rel);
    await fsp.mkdir(dirname(dst.replace(/\/$/, '')), { recursive: true });
    if (rel.endsWith('/')) {
      const counted = countTree(src);
      files += counted.files;
      bytes += counted.bytes;
      await copyTree(src.replace(/\/$/, ''), dst.replace(/\/$/, ''));
      continue;
    }
    const st = await fsp.lstat(src);
    let source = src;
    if (st.isSymbolicLink()) {
      // A link would make the "copy" shared state again: copy what it points to, or skip it loudly.
      const target = await linkTarget(src, from, options);
      if ('reason' in target) {
        skipped.push({ path: rel, reason: target.reason });
        continue;
      }
      source = target.path;
      if (target.dir) {
        const counted = countTree(source);
        files += counted.files;
        bytes += counted.bytes;
        await copyTree(source, dst);
        continue;
      }
    }
    await fsp.copyFile(source, dst, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
    bytes += (await fsp.stat(source)).size;
    files++;
  }
  return { files, bytes, ms: Math.round(performance.now() - started), skipped };
}

/** Where a listed link leads, when lanes may copy it: inside the repository, or outside with the opt-in. */
async function linkTarget(
  link: string,
  repoRoot: string,
  options: IncludeOptions,
): Promise<{ path: string; dir: boolean } | { reason: string }> {
  const shown = await fsp.readlink(link);
  let path: string;
  try {
    path = await fsp.realpath(link);
  } catch {
    return { reason: `it is a link to ${shown}, which does not exist` };
  }
  const root = await fsp.realpath(repoRoot);
  const inside = path === root || path.startsWith(`${root}/`);
  if (path === root) return { reason: `it is a link to the repository itself (${shown})` };
  if (!inside && options.linksOutside !== true)
    return {
      reason:
        `it is a link to ${path}, outside the repository; lanes copies a link's content only from inside ` +
        'the repository unless you opt in: [worktree] include_links_outside = true in ~/.config/lanes/config.toml',
    };
  const st = await fsp.stat(path);
  if (!st.isFile() && !st.isDirectory()) return { reason: `it is a link to ${path}, which is not a file or directory` };
  return { path, dir: st.isDirectory() };
}

/** Files and bytes under a directory (synchronous: 20,000 awaited lstat calls cost a second). */
function countTree(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isDirectory()) continue;
    files++;
    if (e.isFile()) bytes += lstatSync(join(e.parentPath ?? e.path, e.name)).size;
  }
  return { files, bytes };
}

/**
 * Copies a directory's content into `to` (created): copy-on-write where the filesystem supports
 * it, links inside kept as links (node_modules/.bin needs them), mode and times kept. GNU
 * coreutils (Linux) says so with --reflink=auto; BSD cp (macOS) has no long options: -c clones
 * with clonefile(2) on APFS, -P keeps links, -p mode and times. Where a form is refused as usage
 * (another cp than expected), the next is tried; the one that worked is kept for the process.
 */
type CpForm = (from: string, to: string) => string[];
const GNU: CpForm = (from, to) => [
  '-R',
  '--reflink=auto',
  '--no-dereference',
  '--preserve=mode,timestamps',
  '--',
  `${from}/.`,
  to,
];
const BSD_CLONE: CpForm = (from, to) => ['-R', '-P', '-p', '-c', '--', `${from}/.`, to];
const BSD: CpForm = (from, to) => ['-R', '-P', '-p', '--', `${from}/.`, to];
// Usage errors of GNU and BSD cp, and a clone the volume cannot make (not APFS).
const REFUSED = /illegal option|unrecognized option|invalid option|usage:|not supported|clonefile/i;
let cpForms: CpForm[] | undefined;

async function copyTree(from: string, to: string): Promise<void> {
  await fsp.mkdir(to, { recursive: true });
  cpForms ??= platformName() === 'darwin' ? [BSD_CLONE, BSD] : [GNU, BSD_CLONE, BSD];
  for (;;) {
    const [form, ...rest] = cpForms;
    try {
      return await run('cp', form!(from, to));
    } catch (e) {
      if (rest.length === 0 || !REFUSED.test((e as Error).message)) throw e;
      cpForms = rest;
    }
  }
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    childProcess().execFile(file, args, (err, _out, stderr) =>
      err ? reject(new LanesError('E_IO', `${file} failed: ${stderr.trim() || err.message}`)) : resolve(),
    );
  });
}
