import type * as Os from 'node:os';
import { load } from '../core/builtins.js';
import { EXIT } from '../core/errors.js';
import { spawnInherit } from '../core/spawn-inherit.js';

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/**
 * Runs CMD with the terminal's stdin/stdout/stderr, forwarding signals to it, and resolves with
 * its exit code (a signal death as 128+N, a command that cannot be found as 127) and a reason.
 */
export function runChild(
  cmd: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => {
    const [file = '', ...argv] = cmd;
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    const child = spawnInherit(file, argv, options, (end) => {
      for (const s of FORWARDED) process.removeListener(s, forward);
      if ('error' in end) {
        const e = end.error;
        const missing = e.code === 'ENOENT';
        process.stderr.write(
          `lanes: cannot run ${JSON.stringify(file)}: ${missing ? 'command not found' : e.message}\n`,
        );
        resolve({ code: missing ? 127 : 126, reason: `could not run the command (${e.code ?? e.message})` });
      } else if (end.signal) {
        // node:os only here: loading it cost every `lanes exec` ~1 M instructions.
        const n = (load('node:os') as typeof Os).constants.signals[end.signal] ?? 0;
        resolve({ code: 128 + n, reason: `command killed by ${end.signal}` });
      } else resolve({ code: end.code ?? EXIT.error, reason: `command exited with code ${end.code ?? '?'}` });
    });
    for (const s of FORWARDED) process.on(s, forward);
  });
}
