import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmp } from './env.js';

// A kill at every step of a lanes command, in turn: a PATH shim for git that counts its calls and,
// at call LANES_KILL_AFTER_GIT, SIGKILLs its parent (lanes) right after doing its work.

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** A git that counts its calls and, at call N, kills its parent (lanes) after doing its work. */
export function killingGit(): { bin: string; count: string } {
  const bin = tmp('lanes-killgit-');
  const count = join(bin, 'count');
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh
exec 9>>"${count}.lock"; flock 9
n=$(( $(cat "${count}" 2>/dev/null || echo 0) + 1 )); echo $n > "${count}"
exec 9>&-
"${REAL_GIT}" "$@"; rc=$?
[ "$n" = "$LANES_KILL_AFTER_GIT" ] && kill -9 $PPID
exit $rc
`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  return { bin, count };
}
