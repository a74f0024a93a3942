import { existsSync, lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { childProcess } from '../../core/builtins.js';
import { ignoredPaths } from '../../git/status.js';
import { within } from './may-delete.js';

/**
 * Bytes `path` takes on disk (`du -sk`: blocks, as the file system counts them, each hard link
 * once), or null when du is missing or failed. du rather than a walk in JavaScript: a worktree
 * with node_modules holds hundreds of thousands of files.
 */
export function diskUsage(path: string): Promise<number | null> {
  return new Promise((resolve) => {
    childProcess().execFile('du', ['-sk', '--', path], { encoding: 'utf8', maxBuffer: 1 << 20 }, (err, stdout) => {
      // du exits 1 when some file could not be read but still prints the total of the rest.
      const kb = /^(\d+)\s/.exec(stdout ?? '');
      resolve(kb ? Number(kb[1]) * 1024 : err && null);
    });
  });
}

/**
 * The directories of `worktree` named in `names` (at any depth) that git ignores as a whole
 * (ignoredPaths lists one only when nothing in it is tracked). So nothing git tracks, and nothing
 * untracked but not ignored (work a snapshot saves), is ever among them.
 */
export async function reclaimableDirs(worktree: string, names: readonly string[]): Promise<string[]> {
  const wanted = new Set(names);
  const found: string[] = [];
  for (const rel of await ignoredPaths(worktree)) {
    if (!rel.endsWith('/')) continue;
    const name = rel.slice(0, -1).split('/').pop() ?? '';
    if (!wanted.has(name)) continue;
    const abs = join(worktree, rel.slice(0, -1));
    try {
      // A link named node_modules points elsewhere: what it points at is not this worktree's.
      if (!lstatSync(abs).isDirectory() || !within(abs, worktree)) continue;
      // A repository of its own inside (a nested clone, a worktree): not build output.
      if (existsSync(join(abs, '.git'))) continue;
    } catch {
      continue;
    }
    found.push(abs);
  }
  return found;
}

/** Deletes one reclaimable directory (rm -rf; links inside are removed, never followed). */
export function removeDir(path: string): void {
  rmSync(path, { recursive: true, force: true, maxRetries: 2 });
}
