import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs';
import { shellQuote } from '../../core/shell-quote.js';

/**
 * Appends `export LANES_SESSION=<id>` to Claude Code's CLAUDE_ENV_FILE so the agent's later shell
 * commands (lanes claim, lanes commit, …) act as its session. Appended with O_APPEND (other hooks
 * write the same file); not written again when the line is already there (resume, compact).
 */
export function writeEnvFile(file: string, sessionId: string): void {
  const line = `export LANES_SESSION=${shellQuote(sessionId)}\n`;
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (current.split('\n').includes(line.trimEnd())) return;
  const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, (current && !current.endsWith('\n') ? '\n' : '') + line);
  } finally {
    closeSync(fd);
  }
}
