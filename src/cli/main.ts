// The lanes binary. Kept lean: only this file loads at start-up; each command (and the store's
// native module) is imported when it is actually used.
import { EXIT } from '../core/errors.js';
import { runCommand } from './runner.js';
import type { Loader } from './runner.js';

export const COMMANDS: Record<string, Loader> = {
  start: () => import('./commands/start.js'),
  ls: () => import('./commands/ls.js'),
  end: () => import('./commands/end.js'),
  whoami: () => import('./commands/whoami.js'),
  claim: () => import('./commands/claim.js'),
  release: () => import('./commands/release.js'),
  claims: () => import('./commands/claims.js'),
  check: () => import('./commands/check.js'),
  state: () => import('./commands/state.js'),
  handoff: () => import('./commands/handoff.js'),
  path: () => import('./commands/path.js'),
  commit: () => import('./commands/commit.js'),
  snapshot: () => import('./commands/snapshot.js'),
  snapshots: () => import('./commands/snapshots.js'),
  restore: () => import('./commands/restore.js'),
  sweep: () => import('./commands/sweep.js'),
  conflicts: () => import('./commands/conflicts.js'),
  land: () => import('./commands/land.js'),
  adopt: () => import('./commands/adopt.js'),
  guard: () => import('./commands/guard.js'),
  doctor: () => import('./commands/doctor.js'),
  port: () => import('./commands/port.js'),
  ports: () => import('./commands/ports.js'),
  env: () => import('./commands/env.js'),
  exec: () => import('./commands/exec.js'),
  hook: () => import('./commands/hook.js'),
  hooks: () => import('./commands/hooks.js'),
  store: () => import('./commands/store.js'),
  demo: () => import('./commands/demo.js'),
};

const VERSION = '0.1.0';

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const out = (t: string) => void process.stdout.write(t);
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const { overview } = await import('./help.js');
    out(overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    out(`lanes ${VERSION}\n`);
    return EXIT.ok;
  }
  return runCommand(name, args, COMMANDS);
}
