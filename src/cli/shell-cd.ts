import { lstatSync, writeFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';

// A process cannot change its parent shell's directory: the function `lanes shell-init` prints
// runs lanes with LANES_CD_FILE naming a file it made, and cds into what lanes wrote there.

/** With --cd: asks the shell function to leave the shell in `dir`; says how when the shell has no such function. */
export function leaveShellIn(dir: string, io: { stderr: (s: string) => void }): void {
  const file = process.env['LANES_CD_FILE'];
  if (file && isAbsolute(file)) {
    try {
      // Only the empty regular file the function made: never a link, never a new file.
      const st = lstatSync(file);
      if (st.isFile() && st.size === 0 && (process.getuid === undefined || st.uid === process.getuid())) {
        writeFileSync(file, dir, { flag: 'r+' });
        return;
      }
    } catch {
      // told below
    }
  }
  io.stderr(
    `lanes: --cd needs lanes' shell function: add  eval "$(lanes shell-init bash)"  to ~/.bashrc (zsh: ~/.zshrc; fish: lanes shell-init fish | source); the worktree is ${dir}\n`,
  );
}
