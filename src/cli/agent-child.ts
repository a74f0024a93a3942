import { closeSync, openSync } from 'node:fs';
import { constants } from 'node:os';
import { childProcess } from '../core/builtins.js';

// The agent of a lanes run as a child of lanes' wrapper: its stdin the task's file when it takes
// its first task that way, the signals the wrapper gets forwarded to it, and how it ended.

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

export interface RunResult {
  code: number;
  reason: string;
  /** Not asked to stop (no signal reached lanes to forward) and killed by a signal or failed: how it died. */
  died?: string;
}

/** The child, signals forwarded to it. */
export function start(cmd: string[], cwd: string, env: NodeJS.ProcessEnv, stdinFile: string | null) {
  const [file, ...argv] = cmd;
  // Claude Code's first prompt: its stdin is the task's file (it reopens the terminal for the keys).
  const input = stdinFile ? openSync(stdinFile, 'r') : 'inherit';
  const child = childProcess().spawn(file ?? '', argv, { stdio: [input, 'inherit', 'inherit'], cwd, env });
  if (typeof input === 'number') closeSync(input);
  // A signal lanes forwards is someone asking the run to stop (lanes stop, Ctrl-C): not a death.
  let asked = false;
  const forward = (sig: NodeJS.Signals) => {
    asked = true;
    child.kill(sig);
  };
  for (const s of FORWARDED) process.on(s, forward);
  let watching: NodeJS.Timeout | undefined;
  const done = new Promise<RunResult>((resolve) => {
    const finish = (r: RunResult) => {
      for (const s of FORWARDED) process.removeListener(s, forward);
      resolve(r);
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      const missing = e.code === 'ENOENT';
      process.stderr.write(`lanes: cannot run ${JSON.stringify(file)}: ${missing ? 'command not found' : e.message}\n`);
      finish({ code: missing ? 127 : 126, reason: `could not run the command (${e.code ?? e.message})` });
    });
    child.on('exit', (code, signal) => {
      if (signal)
        finish({
          code: 128 + (constants.signals[signal] ?? 0),
          reason: `command killed by ${signal}`,
          ...(asked ? {} : { died: `killed by ${signal}` }),
        });
      else
        finish({
          code: code ?? 1,
          reason: `command exited with code ${code ?? '?'}`,
          ...(asked || code === 0 ? {} : { died: `exited with code ${code ?? '?'}` }),
        });
    });
  });
  return {
    child,
    done,
    setWatch: (t: NodeJS.Timeout) => (watching = t),
    stopWatching: () => clearInterval(watching),
  };
}
