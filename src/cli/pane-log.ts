import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirsSync } from '../core/make-dirs.js';

// The last screen of an agent lanes new started in tmux (issue 45, item 5): tmux's pipe-pane gives
// everything the pane shows to `lanes attach SESSION --record`, which keeps it in a private log
// (0600, in $LANES_HOME/logs), bounded: past MAX bytes only the newest KEEP stay. When the agent
// dies its pane closes, and `lanes attach` of the dead session shows this log.

const MAX = 4 * 1024 * 1024;
const KEEP = 2 * 1024 * 1024;

export { paneLogOf } from '../core/pane-log-path.js';
import { paneLogOf } from '../core/pane-log-path.js';

/** Appends stdin to the session's pane log until the pane closes, keeping it within MAX bytes. */
export async function recordPane(id: string): Promise<void> {
  const file = paneLogOf(id);
  makeDirsSync(join(file, '..'), 0o700);
  const fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o600);
  try {
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      writeSync(fd, chunk);
      if (fstatSync(fd).size > MAX) keepNewest(fd);
    }
  } finally {
    closeSync(fd);
  }
}

/** Keeps the newest KEEP bytes of the file (read, truncate, write back). */
function keepNewest(fd: number): void {
  const size = fstatSync(fd).size;
  const tail = Buffer.alloc(KEEP);
  const n = readSync(fd, tail, 0, KEEP, size - KEEP);
  ftruncateSync(fd, 0);
  // O_APPEND: the write goes to the (now empty) file's end.
  writeSync(fd, tail.subarray(0, n));
}
