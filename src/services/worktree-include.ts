import { constants } from 'node:fs';
import { childProcess } from '../core/builtins.js';
import { LanesError } from '../core/errors.js';
// fs.promises, not node:fs/promises: that module loads readline and watchers at import, a cost
// every command would pay through the library entry (measured on `lanes exec`).
import { existsSync, lstatSync, promises as fsp, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git } from '../git/run.js';

export interface IncludeReport {
  files: number;
  bytes: number;
  ms: number;
}

/**
 * Copies into a new worktree the files of the main worktree that git IGNORES and that match
 * `.worktreeinclude` (gitignore syntax; the convention Claude Code, the Codex app, worktrunk and
 * ccmanager share): a .env, a node_modules. Copy-on-write (FICLONE) where the filesystem can, a
 * plain copy otherwise; never a symlink to the original (a shared node_modules or .env would be
 * shared state again). Tracked files are git's business and are not touched.
 */
export async function copyWorktreeIncludes(from: string, to: string): Promise<IncludeReport | null> {
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
  for (const rel of entries) {
    const src = join(from, rel);
    const dst = join(to, rel);
    await fsp.mkdir(dirname(dst.replace(/\/$/, '')), { recursive: true });
    if (rel.endsWith('/')) {
      const counted = countTree(src);
      files += counted.files;
      bytes += counted.bytes;
      // A whole directory: coreutils cp, copy-on-write where the filesystem supports it, links kept as links.
      await run('cp', [
        '-R',
        '--reflink=auto',
        '--no-dereference',
        '--preserve=mode,timestamps',
        '--',
        src.replace(/\/$/, ''),
        dirname(dst.replace(/\/$/, '')),
      ]);
      continue;
    }
    const st = await fsp.lstat(src);
    if (st.isSymbolicLink()) await fsp.symlink(await fsp.readlink(src), dst);
    else {
      await fsp.copyFile(src, dst, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
      bytes += st.size;
    }
    files++;
  }
  return { files, bytes, ms: Math.round(performance.now() - started) };
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

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    childProcess().execFile(file, args, (err, _out, stderr) =>
      err ? reject(new LanesError('E_IO', `${file} failed: ${stderr.trim() || err.message}`)) : resolve(),
    );
  });
}
