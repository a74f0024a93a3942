import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { childProcess, crypto, net } from '../core/builtins.js';
import { hostId } from '../core/process-identity.js';
import { runtimeRoot } from '../core/paths.js';

// The per-host watcher of one store (`lanes watch`): started on demand, detached, by whatever
// starts a session here (lanes' wrappers, an agent's session-start hook, lanes start), as the team
// store's broker is; one per store and host, found by its socket; it exits once no live session of
// this host remains. Its socket is in the user's private runtime directory (0700).

type Env = Record<string, string | undefined>;

/** sun_path is 108 bytes on Linux and 104 on macOS, NUL included. */
const MAX_SOCKET_PATH = 100;

export function watcherSocket(store: string, env: Env): string | null {
  const key = crypto().createHash('sha256').update(`${store}\0${hostId()}`).digest('hex').slice(0, 16);
  const socket = join(runtimeRoot(env), 'watch', `${key}.sock`);
  return Buffer.byteLength(socket) > MAX_SOCKET_PATH ? null : socket;
}

/** Whether something accepts connections on the socket (a file left by a dead watcher does not). */
export function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net().connect(socket);
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Starts the watcher of `store` unless one answers (LANES_WATCH=0: never). Its trouble is never the
 * caller's: a session works without it, its deaths then seen by the next command that looks.
 */
export async function ensureWatcher(store: string, env: Env = process.env): Promise<void> {
  const v = (env['LANES_WATCH'] ?? '').toLowerCase();
  if (v === '0' || v === 'off' || v === 'false') return;
  try {
    // A store file by its absolute path: the watcher runs in / (below), and finds its socket by it.
    const at = /^postgres(ql)?:\/\//i.test(store) ? store : resolve(store);
    const socket = watcherSocket(at, env);
    if (!socket || (await answers(socket))) return;
    const cli = fileURLToPath(new URL('./cli.cjs', import.meta.url));
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(env))
      if (val !== undefined && !['LANES_SESSION', 'LANES_RUN', 'TMUX', 'TMUX_PANE'].includes(k)) out[k] = val;
    if (out['LANES_HOME']) out['LANES_HOME'] = resolve(out['LANES_HOME']);
    // In / rather than the caller's directory: a watcher started from a run's worktree would sit in
    // it for as long as it lives, and gc --worktrees never removes a worktree a process works in.
    const child = childProcess().spawn(process.execPath, [cli, 'watch'], {
      detached: true,
      stdio: 'ignore',
      cwd: '/',
      env: { ...out, LANES_STORE: at },
    });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no runtime directory, no spawn: the next look of any command still sees the deaths
  }
}
