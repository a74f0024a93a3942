import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { net } from '../core/builtins.js';
import { makeDirsSync } from '../core/make-dirs.js';
import { runtimeRoot } from '../core/paths.js';

// The caller's environment (its API keys, PATH, LANES_HOME) handed to lanes new's wrapper inside
// tmux without ever being on disk or on a command line: lanes new listens on a socket in a fresh
// private directory (0700, under the user's runtime directory), the wrapper connects once and reads
// it, and the directory goes as soon as the start is settled (issue 46, item 3). Only the user can
// reach the socket; it holds nothing itself; a kill leaves at most an empty socket file, which
// `lanes doctor` names and --fix removes.

export interface EnvHandoff {
  /** What the wrapper connects to. */
  socket: string;
  /** Stops serving and removes the directory (every path of the start calls it). */
  close(): void;
}

/** The handoff directories of lanes new, named so doctor finds what a kill left. */
export const HANDOFF_PREFIX = 'new-env-';

export async function serveEnv(
  env: NodeJS.ProcessEnv,
  home: Record<string, string | undefined> = process.env,
): Promise<EnvHandoff> {
  const root = runtimeRoot(home);
  makeDirsSync(root, 0o700);
  const dir = mkdtempSync(join(root, HANDOFF_PREFIX));
  const socket = join(dir, 'env.sock');
  const body = JSON.stringify(env);
  const server = net().createServer((c) => {
    c.on('error', () => undefined);
    c.end(body);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(socket, () => ok());
  });
  server.unref();
  return {
    socket,
    close() {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The wrapper's side: the environment lanes new serves, read once (null: none answers). */
export function readEnv(socket: string): Promise<NodeJS.ProcessEnv> {
  return new Promise((resolve, reject) => {
    let text = '';
    const c = net().connect(socket);
    c.setEncoding('utf8');
    c.on('data', (d: string) => (text += d));
    c.on('end', () => {
      try {
        resolve(JSON.parse(text) as NodeJS.ProcessEnv);
      } catch (e) {
        reject(new Error(`the environment lanes new handed over is cut (${(e as Error).message})`));
      }
    });
    c.on('error', (e) => reject(new Error(`lanes new's environment is gone (${e.message}): it gave up on this start`)));
  });
}
