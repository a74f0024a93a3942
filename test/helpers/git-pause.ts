import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { FIXTURES, tmp } from './env.js';

/**
 * Holds a lanes command still right before one git subcommand, so a test can act in that window
 * (move a branch, take a claim over) and then let it go on. Synchronized by files and a FIFO,
 * never by sleeps: `paused()` resolves when the command has reached the git call.
 */
export function gitPause(on: string, env: Record<string, string>) {
  const dir = tmp('lanes-pause-');
  const bin = join(dir, 'bin');
  execFileSync('mkdir', [bin]);
  symlinkSync(join(FIXTURES, 'git-pause.sh'), join(bin, 'git'));
  execFileSync('mkfifo', [join(dir, 'go')]);
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  return {
    env: { ...env, PATH: `${bin}:${env['PATH'] ?? ''}`, PAUSE_ON: on, PAUSE_DIR: dir, REAL_GIT: realGit },
    arm: () => writeFileSync(join(dir, 'armed'), ''),
    /** Resolves once the paused command sits at the git call (bounded: rejects after `ms`). */
    async paused(ms = 20_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!existsSync(join(dir, 'paused'))) {
        if (Date.now() > deadline) throw new Error(`no lanes command reached git ${on} within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    /** Lets the paused command go on. */
    async release(): Promise<void> {
      const fifo = await open(join(dir, 'go'), 'w');
      await fifo.write('go\n');
      await fifo.close();
    },
  };
}
