import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';

/** SQLite's codes for a write that found no space (the SHM file is sized on open, so SHMSIZE too). */
const SPACE_CODES = new Set([
  'SQLITE_FULL',
  'SQLITE_IOERR_SHMSIZE',
  'SQLITE_IOERR_SHMMAP',
  'SQLITE_IOERR_WRITE',
  'SQLITE_IOERR_TRUNCATE',
  'SQLITE_IOERR_FSYNC',
]);

/** Less than this free (and an I/O error) reads as a full disk: the store's SHM alone needs 32 KiB. */
const NEARLY_FULL = 1024 * 1024;

export interface DiskSpace {
  /** Bytes an unprivileged writer may still use on the store's filesystem. */
  free: number;
  total: number;
}

export function diskSpace(file: string): DiskSpace | null {
  try {
    const s = statfsSync(dirname(file));
    return { free: s.bavail * s.bsize, total: s.blocks * s.bsize };
  } catch {
    return null;
  }
}

/** Whether an SQLite error came from the store's filesystem being out of space (asked of the filesystem). */
export function outOfSpace(e: unknown, file: string): DiskSpace | null {
  const code = String((e as { code?: unknown }).code ?? '');
  if (!SPACE_CODES.has(code) || file === ':memory:') return null;
  const space = diskSpace(file);
  return space && (code === 'SQLITE_FULL' || space.free < NEARLY_FULL) ? space : null;
}

export function describeSpace(space: DiskSpace | null): string {
  if (!space) return '';
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  return ` (${space.free < 1024 ? `${space.free} bytes` : mib(space.free)} free of ${mib(space.total)})`;
}
