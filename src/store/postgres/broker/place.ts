import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crypto } from '../../../core/builtins.js';
import { runtimeRoot } from '../../../core/paths.js';

// Where the broker of one store and one lanes build listens. The directory is private to the user
// (0700, under the runtime root), so whoever reaches the socket is this user; the name carries a
// key of the build (the CLI file's path, size and time) and of the store URL, so an upgraded lanes
// never talks to a broker an older one started, and one broker serves one store.

export type Env = Record<string, string | undefined>;

export interface BrokerPlace {
  /** The lanes CLI that runs the broker (`lanes store broker`). */
  cli: string;
  /** The private directory holding the socket; what pg calls the host. */
  dir: string;
  /** pg's name for a server socket in a directory is `.s.PGSQL.<port>`. */
  port: number;
  socket: string;
  /** What a client names itself with at log-in; the broker refuses any other. */
  identity: string;
}

const PORT = 5432;
/** sun_path is 108 bytes on Linux and 104 on macOS, NUL included. */
const MAX_SOCKET_PATH = 100;

/** The broker's place for this store, or null where there can be none (no built CLI, a path too long). */
export function brokerPlace(connectionString: string, env: Env): BrokerPlace | null {
  const cli = env['LANES_BROKER_CLI'] || cliBesideBundle();
  if (!cli || !existsSync(cli)) return null;
  const st = statSync(cli);
  const key = crypto()
    .createHash('sha256')
    .update(`${cli}\0${st.size}\0${Math.floor(st.mtimeMs)}\0${st.ino}\0${connectionString}`)
    .digest('hex')
    .slice(0, 16);
  const dir = join(runtimeRoot(env), 'broker', key);
  const socket = join(dir, `.s.PGSQL.${PORT}`);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) return null;
  return { cli, dir, port: PORT, socket, identity: `lanes-broker-${key}` };
}

/** dist/cli.cjs beside the running bundle (hot.cjs, main.cjs, index.js all live in dist/). */
function cliBesideBundle(): string | null {
  try {
    return fileURLToPath(new URL('./cli.cjs', import.meta.url));
  } catch {
    return null;
  }
}

/** Whether the broker is wanted: on for a team store unless LANES_BROKER=0 (or off). */
export function brokerWanted(env: Env): boolean {
  const v = (env['LANES_BROKER'] ?? '').toLowerCase();
  return !(v === '0' || v === 'off' || v === 'false' || v === 'no');
}
