import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/**
 * A small tmpfs of its own (needs root, as CI has), unmounted after the test file; null when
 * mounting is not allowed here, so the caller can skip with that reason.
 */
export function smallTmpfs(size = '1m'): string | null {
  const mnt = mkdtempSync(join(tmpdir(), 'lanes-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', mnt], { stdio: 'pipe' });
  } catch {
    rmSync(mnt, { recursive: true, force: true });
    return null;
  }
  after(() => {
    execFileSync('umount', ['-l', mnt]);
    rmSync(mnt, { recursive: true, force: true });
  });
  return mnt;
}

export const NEEDS_ROOT = 'needs root to mount a 1 MiB tmpfs (CI runs as root; run the suite with sudo to see it)';

/** Fills the filesystem of `dir` to the last byte; returns a function that frees it again. */
export function fillDisk(dir: string): () => void {
  const file = join(dir, `.filler-${process.pid}`);
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  try {
    for (let size = chunk.length; size > 0;) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        size = size >> 1;
      }
    }
  } finally {
    closeSync(fd);
  }
  return () => unlinkSync(file);
}
