import type { ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { childProcess, net } from '../../../core/builtins.js';
import { brokerPlace, brokerWanted } from './place.js';
import type { BrokerPlace, Env } from './place.js';

// A client's way to its broker: the socket if a broker answers on it, else a broker started for
// it (detached, so it outlives the hook or command that started it), waited for briefly. Whatever
// goes wrong here answers null, and the store connects to the server directly as without a broker.

/** How long a call waits for a broker it started before going direct (LANES_BROKER_START_MS). */
const START_MS = 3000;

export async function brokerEndpoint(connectionString: string, env: Env): Promise<BrokerPlace | null> {
  if (!brokerWanted(env)) return null;
  let place: BrokerPlace | null;
  try {
    place = brokerPlace(connectionString, env);
  } catch {
    return null;
  }
  if (!place) return null;
  if (await answers(place.socket)) return place;
  // A broker that could not reach the server a moment ago would not now either: straight to the
  // server, which says why (and the next calls do not each start a broker that fails).
  if (recentlyFailed(place)) return null;
  let exited = false;
  try {
    start(place, connectionString, env).once('exit', () => (exited = true));
  } catch {
    return null;
  }
  // Waited for: the broker this call started, or the one another call is starting (ours then exits
  // at once, finding the start lock taken: run.ts), for as long as one is on its way, up to twice
  // START_MS (a loaded host starts a process slowly): going to the server instead takes one of its
  // connections, which on a full server is a refusal.
  const patience = Number(env['LANES_BROKER_START_MS']) || START_MS;
  const started = Date.now();
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    await new Promise((r) => setTimeout(r, pause));
    if (await answers(place.socket)) return place;
    if ((exited && !startingElsewhere(place)) || Date.now() - started > 2 * patience) return null;
  }
}

/** Whether a live process holds a broker's start lock (run.ts: its pid, until that broker listens). */
function startingElsewhere(place: BrokerPlace): boolean {
  try {
    const pid = Number(readFileSync(join(place.dir, 'starting'), 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return true; // created this instant, its pid not yet written
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A broker's failure to reach the server is remembered for this long (broker/run.ts writes it). */
export const FAILED_FOR_MS = 10_000;

function recentlyFailed(place: BrokerPlace): boolean {
  try {
    return Date.now() - statSync(join(place.dir, 'failed')).mtimeMs < FAILED_FOR_MS;
  } catch {
    return false;
  }
}

/** Whether something accepts connections on the socket (a file left by a dead broker does not). */
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
 * `lanes store broker`, detached in a session of its own, told the store URL on stdin (never on
 * its command line, which every user can read). Two calls starting one each is harmless: the second
 * finds the socket taken and exits (run.ts).
 */
function start(place: BrokerPlace, connectionString: string, env: Env): ChildProcess {
  const child = childProcess().spawn(process.execPath, [place.cli, 'store', 'broker'], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: { ...withoutSession(env), LANES_BROKER_DIR: place.dir },
  });
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(JSON.stringify({ connectionString, dir: place.dir, identity: place.identity }));
  child.unref();
  return child;
}

/** The broker acts as no session: the caller's session variables stay with the caller. */
function withoutSession(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== 'LANES_SESSION') out[k] = v;
  return out;
}

/**
 * A failure of the way to the server through the broker (none answers on the socket any more, it
 * answers for another build, it lost or cannot reach the server) rather than of the store: the call
 * then connects directly and meets the server as a call without a broker would. A broker too busy
 * to answer in time is not one: going around it would add the server connections it saves.
 */
export function brokerTrouble(e: unknown): boolean {
  const cause = ((e as { cause?: unknown }).cause ?? e) as { code?: unknown; message?: unknown };
  const code = String(cause.code ?? '');
  const msg = String(cause.message ?? '');
  if (/timeout/i.test(msg)) return false;
  return (
    ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE'].includes(code) ||
    code.startsWith('08') ||
    /lanes broker|Connection terminated/.test(msg)
  );
}

/** Nobody answers on the broker's socket any more (it exited, was killed), or another build does. */
export function brokerGone(e: unknown): boolean {
  const cause = ((e as { cause?: unknown }).cause ?? e) as { code?: unknown; message?: unknown };
  const code = String(cause.code ?? '');
  return code === 'ENOENT' || code === 'ECONNREFUSED' || /another lanes build/.test(String(cause.message ?? ''));
}
