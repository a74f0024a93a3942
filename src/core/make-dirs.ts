import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * mkdir -p that always ends. Node's own `mkdirSync(p, { recursive: true })` spins forever, at full
 * CPU and deaf to SIGINT and SIGTERM, where mkdir answers ENOENT under a parent that exists (a
 * pseudo-filesystem: LANES_HOME=/proc/x hung `lanes ls` until SIGKILL). Here each missing directory
 * is made once, top down, and the first refusal is thrown as the system gave it (ENOENT, EACCES,
 * EPERM, ENOTDIR: an ancestor is a file).
 */
export function makeDirsSync(path: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let p = resolve(path); ;) {
    try {
      mkdirSync(p, { mode });
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        if (!statSync(p).isDirectory())
          throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${p}'`), { code: 'ENOTDIR', path: p });
        break;
      }
      const parent = dirname(p);
      if (code !== 'ENOENT' || parent === p) throw e;
      missing.push(p);
      p = parent;
    }
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (e) {
      // Made meanwhile by another process: fine when it is a directory.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) throw e;
    }
  }
}
