import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:net';
import { crypto, net } from '../../../core/builtins.js';
import { ensurePrivateDir } from '../../../core/private-dir.js';
import { hostId } from '../../../core/process-identity.js';
import { loadPg } from '../pg-module.js';
import { answers } from './endpoint.js';
import { brokerPlace } from './place.js';
import type { Env } from './place.js';
import { Pooler } from './pooler.js';
import { ServerPool } from './server-pool.js';
import type { PoolStats } from './server-pool.js';

// `lanes store broker`: the per-host broker of one team store. Hooks, CLI calls and MCP servers of
// this user reach it on a socket in a private directory and share its few server connections, so a
// fleet of agents holds a few PostgreSQL connections per host instead of one per call. Started on
// demand by the store (endpoint.ts); exits once no client came for a while.

export interface BrokerInput {
  connectionString: string;
  dir: string;
  identity: string;
}

export interface BrokerStatus {
  pid: number;
  identity: string;
  startedAt: number;
  updatedAt: number;
  clients: number;
  pool: PoolStats;
}

const STATUS = 'broker.json';

const num = (env: Env, name: string, dflt: number) => {
  const v = Number(env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
};

/** Serves until idle; resolves with the exit code (0 also when another broker already serves). */
export async function runBroker(input: BrokerInput, env: Env, log: (line: string) => void): Promise<number> {
  ensurePrivateDir(input.dir);
  const socket = join(input.dir, '.s.PGSQL.5432');
  if (await answers(socket)) return 0;
  // One broker starting at a time: two calls that each found none answering (a loaded machine) would
  // each log in to the server before one of them lost the socket (a connection the fleet pays for).
  const starting = join(input.dir, 'starting');
  if (!takeStartLock(starting)) return 0;
  try {
    return await serve(input, env, log, socket);
  } finally {
    try {
      unlinkSync(starting);
    } catch {
      // gone already
    }
  }
}

/** This host and process, short: a fleet's brokers on one server differ by it. */
function brokerTag(): string {
  return crypto().createHash('sha256').update(`${hostId()}\0${process.pid}`).digest('hex').slice(0, 10);
}

/** The start lock: created exclusively with this pid; one whose pid is gone is taken over. */
function takeStartLock(file: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no lock to be had: start anyway
      const text = readFileSync(file, 'utf8').trim();
      if (!text) return false; // created this instant, its pid not yet written: that one starts
      const pid = Number(text);
      try {
        if (Number.isInteger(pid) && pid > 0) {
          process.kill(pid, 0);
          return false; // another broker is starting: it will answer
        }
      } catch {
        // its starter is gone: the lock is stale
      }
      try {
        unlinkSync(file);
      } catch {
        // taken by another meanwhile
      }
    }
  }
  return false;
}

async function serve(input: BrokerInput, env: Env, log: (line: string) => void, socket: string): Promise<number> {
  const pool = new ServerPool(loadPg(), {
    connectionString: input.connectionString,
    // The server names the host's broker (which build, which host and process) in pg_stat_activity;
    // brokers count each other by these names to share the server's connections (server-pool.ts).
    applicationName: `lanes broker ${input.identity.slice(-8)} ${brokerTag()}`,
    max: num(env, 'LANES_BROKER_POOL', 2),
    idleMs: num(env, 'LANES_BROKER_CONN_IDLE_MS', 10_000),
    growAfterMs: num(env, 'LANES_BROKER_GROW_MS', 20),
    headroom: num(env, 'LANES_BROKER_HEADROOM', 8),
    log,
  });
  try {
    await pool.warm();
  } catch (e) {
    // A full server (53300) is a moment, not a failure: clients queue here for a first connection
    // (the pool keeps trying) instead of each going straight to the server and being refused too.
    if ((e as { code?: string }).code === '53300')
      log(`the server is full for now; clients wait: ${(e as Error).message}`);
    else return failed(e);
  }
  async function failed(e: unknown): Promise<number> {
    log(`cannot reach the server: ${(e as Error).message}`);
    writeAtomic(join(input.dir, 'failed'), String(Date.now()));
    await pool.end();
    return 1;
  }
  try {
    unlinkSync(join(input.dir, 'failed'));
  } catch {
    // none
  }
  const idleExitMs = num(env, 'LANES_BROKER_IDLE_MS', 60_000);
  let idleTimer: NodeJS.Timeout | undefined;
  let stopping: (() => void) | undefined;
  const stopped = new Promise<void>((r) => (stopping = r));
  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (pooler.clients === 0) stopping?.();
    }, idleExitMs);
  };
  const pooler = new Pooler(pool, input.identity, armIdle);
  const server = net().createServer((s) => {
    clearTimeout(idleTimer);
    pooler.serve(s);
  });
  server.on('error', (e) => log(`socket: ${e.message}`));
  if (!(await listen(server, socket))) {
    await pool.end();
    return 0; // another broker took the socket first
  }
  // Listening: the next starter finds this broker answering, the start lock has done its work.
  try {
    unlinkSync(join(input.dir, 'starting'));
  } catch {
    // gone already
  }
  chmodSync(socket, 0o600);
  const ours = statSync(socket).ino;
  const startedAt = Date.now();
  const status = (): BrokerStatus => ({
    pid: process.pid,
    identity: input.identity,
    startedAt,
    updatedAt: Date.now(),
    clients: pooler.clients,
    pool: pool.snapshot(),
  });
  const writeStatus = () => writeAtomic(join(input.dir, STATUS), JSON.stringify(status()));
  writeStatus();
  const statusTimer = setInterval(writeStatus, 1000);
  armIdle();
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, () => stopping?.());
  await stopped;
  clearInterval(statusTimer);
  clearTimeout(idleTimer);
  server.close();
  // Only our own socket and status: a broker that replaced ours (it found ours dead) keeps its own.
  try {
    if (statSync(socket).ino === ours) unlinkSync(socket);
  } catch {
    // gone already
  }
  try {
    const s = JSON.parse(readFileSync(join(input.dir, STATUS), 'utf8')) as BrokerStatus;
    if (s.pid === process.pid) unlinkSync(join(input.dir, STATUS));
  } catch {
    // gone already
  }
  pooler.closeAll();
  await pool.end();
  return 0;
}

/**
 * Listens on the socket. A socket file nobody answers on was left by a broker that died: removed
 * and taken. Two brokers doing that at once can both listen, the later on the name: the earlier
 * then gets no new client and exits when idle.
 */
async function listen(server: Server, socket: string): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once('error', resolve);
      server.listen(socket, () => {
        server.removeListener('error', resolve);
        resolve(null);
      });
    });
    if (!err) return true;
    if (err.code !== 'EADDRINUSE') throw err;
    if (await answers(socket)) return false;
    try {
      unlinkSync(socket);
    } catch {
      // another broker removed it first
    }
  }
  return false;
}

function writeAtomic(file: string, text: string): void {
  try {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // a status is a courtesy: the broker serves without it
  }
}

/** What the broker of this store reports, or null when none runs for it (LANES_BROKER=0 included). */
export function brokerStatus(connectionString: string, env: Env): (BrokerStatus & { socket: string }) | null {
  const place = brokerPlace(connectionString, env);
  if (!place || !existsSync(place.socket)) return null;
  try {
    const s = JSON.parse(readFileSync(join(place.dir, STATUS), 'utf8')) as BrokerStatus;
    // Written every second while it runs: an older one is a broker that died.
    return Date.now() - s.updatedAt < 5000 ? { ...s, socket: place.socket } : null;
  } catch {
    return null;
  }
}
