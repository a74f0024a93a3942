import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { LanesError } from '../core/errors.js';

// The real tmux, as `lanes new`, `attach` and `stop` use it: a detached session per lanes
// session, named after it. Every call is one tmux process with its arguments (no shell).

/** tmux's path on PATH, or null. */
export function findTmux(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env['PATH'] ?? '').split(delimiter).filter(Boolean)) {
    const file = join(dir, 'tmux');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

export function tmuxMissing(): LanesError {
  return new LanesError('E_PLATFORM', 'tmux is not installed (lanes new starts each agent in a tmux session)', {
    hint: 'install it (Debian/Ubuntu: apt install tmux; macOS: brew install tmux), or run with --background: the agent runs detached, its output in the session log',
  });
}

export function tmux(args: string[], env: NodeJS.ProcessEnv = process.env): { ok: boolean; out: string; err: string } {
  const r = spawnSync(findTmux(env) ?? 'tmux', args, { env, encoding: 'utf8', timeout: 10_000 });
  return { ok: r.status === 0, out: (r.stdout ?? '').trim(), err: (r.stderr ?? '').trim() || (r.error?.message ?? '') };
}

/** A tmux session name for a lanes session: `lanes-<slug>` (tmux refuses `.` and `:` in names). */
export function tmuxName(slug: string): string {
  return `lanes-${slug.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 60)}`;
}

export function tmuxHas(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return tmux(['has-session', '-t', `=${name}`], env).ok;
}

/** `tmux NAME` as kept on the session (SessionRecord.terminal): the name, or null for another kind. */
export function tmuxOf(terminal: string | null): string | null {
  return terminal?.startsWith('tmux ') ? terminal.slice(5) : null;
}
