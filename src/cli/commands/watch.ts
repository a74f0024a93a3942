import { spawn } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeDirsSync } from '../../core/make-dirs.js';
import { dirname } from 'node:path';
import { EXIT } from '../../core/errors.js';
import { net } from '../../core/builtins.js';
import { parseDuration } from '../../core/duration.js';
import { resolveStore } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';
import { answers, watcherSocket } from '../watcher.js';

/** How long a watcher rides out a store that does not answer (gone for good after that: a dropped schema). */
const OUTAGE_MS = 10 * 60_000;

export const command: CommandSpec = {
  name: 'watch',
  summary: "Prove this host's sessions alive every few seconds: a death is recorded and told when it happens.",
  usage: 'watch [--once] [--every DURATION] [--idle DURATION] [--json]',
  description: [
    'The per-host watcher of a store: lanes starts it on demand (detached) whenever a session starts here',
    "(lanes new's wrapper, lanes start, an agent's session-start hook), one per store and host; it exits",
    'once no live session of this host remains for --idle (default 30s). Each look (every 2s) proves the open',
    'sessions of this host alive as every command does: a death is recorded (journaled as session.died) and',
    'notified ([notify]) within seconds, with no command run and no page open. On a team store it also',
    "renews the leases of this host's sessions while their owners live, so other hosts never take the claims",
    'of an agent that is only thinking. LANES_WATCH=0: never started. --once: one look, then exit.',
  ].join('\n'),
  options: {
    once: { type: 'boolean', help: 'one look, printed, then exit' },
    every: { type: 'string', arg: 'DURATION', help: 'time between looks (default 2s)' },
    idle: { type: 'string', arg: 'DURATION', help: 'exit after this long with no live session here (default 30s)' },
  },
  maxPositionals: 0,
  async run(args, io) {
    const lanes = await io.lanes({ session: null, notice: false });
    if (args.values['once']) {
      const look = await lanes.sessions.watch();
      if (io.json) printJson(io.stdout, look);
      else
        io.stdout(
          `${look.live} live session(s) here; ${look.died.length} found dead; ${look.renewed} lease(s) renewed\n`,
        );
      return EXIT.ok;
    }
    // Every 2 s, and at least four times a lease (a team store's short lease is renewed in time).
    const given = str(args.values['every']) ?? process.env['LANES_WATCH_EVERY'];
    const leaseMs = Number(process.env['LANES_LEASE_MS']) || 60_000;
    const everyMs = given ? parseDuration(given, '--every') : Math.min(2000, Math.max(50, Math.floor(leaseMs / 4)));
    const idleMs = parseDuration(str(args.values['idle']) ?? (process.env['LANES_WATCH_IDLE'] || '30s'), '--idle');
    const store = await resolveStore(str(args.values['store']), process.env);
    const socket = watcherSocket(store, process.env);
    const server = socket ? await listen(socket) : null;
    if (socket && !server) return EXIT.ok; // another watcher of this store answers
    let stopped = false;
    const stop = () => (stopped = true);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    const stopping = new Set<string>();
    let liveAt = Date.now();
    let lookedAt = Date.now();
    try {
      // Until no live session has been seen for --idle; through a store outage (the next look tries
      // again: a thinking agent's lease must be renewed when the store is back) for at most 10 min.
      while (!stopped && Date.now() - liveAt < idleMs && Date.now() - lookedAt < OUTAGE_MS) {
        const look = await lanes.sessions.watch().catch(() => null);
        if (look) lookedAt = Date.now();
        for (const id of look?.pastGrace ?? []) stopPastGrace(id, stopping);
        if (look ? look.live > 0 : true) liveAt = Date.now();
        await new Promise((r) => setTimeout(r, everyMs));
      }
    } finally {
      server?.close();
    }
    return EXIT.ok;
  },
};

/** Listens on the socket; a socket file nobody answers on (a watcher that died) is taken over. Null: another answers. */
async function listen(socket: string): Promise<ReturnType<ReturnType<typeof net>['createServer']> | null> {
  makeDirsSync(dirname(socket), 0o700);
  for (let attempt = 0; attempt < 3; attempt++) {
    const server = net().createServer((c) => c.end());
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once('error', resolve);
      server.listen(socket, () => {
        server.removeListener('error', resolve);
        resolve(null);
      });
    });
    if (!err) {
      server.unref();
      return server;
    }
    if (err.code !== 'EADDRINUSE') throw err;
    if (await answers(socket)) return null;
    try {
      unlinkSync(socket);
    } catch {
      // another watcher removed it first
    }
  }
  return null;
}

/**
 * A session paused by its budget past [budget] grace is stopped as `lanes stop` does (its work
 * saved first), by a child of this watcher (the look journaled budget.stop: why).
 */
function stopPastGrace(id: string, stopping: Set<string>): void {
  if (stopping.has(id)) return;
  stopping.add(id);
  const cli = fileURLToPath(new URL('./cli.cjs', import.meta.url));
  const child = spawn(process.execPath, [cli, 'stop', id, '--force'], { stdio: 'ignore', env: process.env });
  child.on('error', () => stopping.delete(id));
  child.on('exit', () => stopping.delete(id));
}
