import { childProcess } from '../core/builtins.js';
import { constants } from 'node:os';
import { EXIT } from '../core/errors.js';

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
    const [file, ...argv] = cmd;
    const child = childProcess().spawn(file ?? '', argv, { stdio: 'inherit', cwd: options.cwd, env: options.env });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    for (const s of FORWARDED) process.on(s, forward);
    const done = (result: { code: number; reason: string }) => {
      for (const s of FORWARDED) process.removeListener(s, forward);
      resolve(result);
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      const missing = e.code === 'ENOENT';
      process.stderr.write(`lanes: cannot run ${JSON.stringify(file)}: ${missing ? 'command not found' : e.message}\n`);
      done({ code: missing ? 127 : 126, reason: `could not run the command (${e.code ?? e.message})` });
    });
    child.on('exit', (code, signal) => {
      if (signal) done({ code: 128 + (constants.signals[signal] ?? 0), reason: `command killed by ${signal}` });
      else done({ code: code ?? EXIT.error, reason: `command exited with code ${code ?? '?'}` });
    });
  });
}
