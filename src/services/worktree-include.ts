import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, readlink, symlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
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
  const list = async (args: string[]) => (await git(['ls-files', '-z', '--others', '--ignored', ...args], { cwd: from })).split('\0').filter(Boolean);
  const [ignored, matching] = await Promise.all([list(['--exclude-standard']), list([`--exclude-from=${include}`])]);
  const wanted = new Set(matching);
  const files = ignored.filter((f) => wanted.has(f));
  let bytes = 0;
  const made = new Set<string>();
  const ensureDir = async (d: string) => {
    if (made.has(d)) return;
    await mkdir(d, { recursive: true });
    made.add(d);
  };
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const rel = files[next++]!;
      const src = join(from, rel);
      const dst = join(to, rel);
      await ensureDir(dirname(dst));
      const st = await lstat(src);
      if (st.isSymbolicLink()) await symlink(await readlink(src), dst); // the same link, never one to the original
      else {
        await copyFile(src, dst, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
        bytes += st.size;
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return { files: files.length, bytes, ms: Math.round(performance.now() - started) };
}
