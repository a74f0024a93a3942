import { statfsSync } from 'node:fs';

// git's and the OS's ways of saying a write found no space ("index.lock write error. Out of
// diskspace", "No space left on device"): told as what they are, with what is free, instead of
// git's raw words (issue 46, item 5).

const NO_SPACE = /No space left on device|Out of diskspace|ENOSPC|Disk quota exceeded|EDQUOT/i;

export function saysDiskFull(message: string): boolean {
  return NO_SPACE.test(message);
}

/** Why a write under `path` failed, in one line: the full disk (or quota) said plainly, else git's or the OS's first line. */
export function writeFailureText(path: string | null, message: string): string {
  return path && saysDiskFull(message) ? diskFullText(path, message) : (message.split('\n')[0] ?? '');
}

/**
 * `the disk holding /w is full (12 KiB free of 1.0 MiB)`; where git or the OS said the user's
 * quota was the limit (`message`), that instead: the disk itself may have room.
 */
export function diskFullText(path: string, message = ''): string {
  if (/quota exceeded|EDQUOT/i.test(message))
    return `your disk quota on the filesystem holding ${path} is used up (disk quota exceeded)`;
  let space = '';
  try {
    const s = statfsSync(path);
    const free = s.bavail * s.bsize;
    const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
    space = ` (${free < 1048576 ? `${Math.round(free / 1024)} KiB` : mib(free)} free of ${mib(s.blocks * s.bsize)})`;
  } catch {
    // the path is gone: said without figures
  }
  return `the disk holding ${path} is full${space}`;
}
