import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { agentLog } from '../agents/run-record.js';

// The log lanes' wrapper asks an agent on a seat to keep (agents/run-record.ts agentLog: Gemini
// CLI's debug log, where a quota it waits out shows): set in the agent's environment, and ended
// once — what it holds appended to the log the environment named, if any, then removed — after the
// run, or at the wrapper's exit on a path that never got there (a spawn that threw, an exit from a
// signal handler). Only a SIGKILL of the wrapper leaves it behind, in its private directory.

export function agentLogFor(
  agent: string,
  env: NodeJS.ProcessEnv,
  tmp: string,
  run: string,
): { path: string; end: () => void } | null {
  const log = agentLog(agent, env, tmp, run);
  if (!log) return null;
  env[log.name] = log.path;
  let ended = false;
  const endAtExit = () => {
    if (ended) return;
    ended = true;
    try {
      if (log.then) appendFileSync(log.then, readFileSync(log.path));
    } catch {
      // no log written (the agent never started), or the named one not writable: nothing to keep
    }
    rmSync(dirname(log.path), { recursive: true, force: true });
  };
  process.on('exit', endAtExit);
  return {
    path: log.path,
    end: () => {
      process.removeListener('exit', endAtExit);
      endAtExit();
    },
  };
}
