import { copyStore, migrateStore, resolveStore, runBroker, storeStatus } from '../../index.js';
import type { BrokerInput, StoreStatus } from '../../index.js';
import { appendFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { readStdinJson } from '../stdin-json.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson } from '../output.js';
import { hanging, terminalWidth, wrap } from '../layout.js';

export const command: CommandSpec = {
  name: 'store',
  summary: 'Show, migrate or copy the store (SQLite file or PostgreSQL team store).',
  usage: 'store status | store migrate | store copy --from URL_OR_PATH --to URL_OR_PATH [--force] | store broker',
  description: [
    'status: backend, location (a URL is shown without its password), schema version and what it holds.',
    'migrate: bring the schema to this version now (lanes also does it on first use; run it as the',
    'database owner ahead of a rollout). A schema newer than this lanes is refused untouched.',
    'copy: sessions, claims with their fencing tokens, fencing counters, state and the decision journal;',
    'e.g. a team moving from its SQLite files to PostgreSQL. A target holding anything is refused unless',
    '--force, which replaces its sessions, claims and state (fencing counters keep the higher value, so no',
    "token is ever granted twice; the target's own journal stays, the copied entries follow it).",
    "broker: this host's broker of a team store, which lanes starts on its own when a call needs it",
    '(not run by hand): hooks, commands and MCP servers of this user share its few PostgreSQL connections',
    'over a socket in a private directory, and it exits after a minute without clients. LANES_BROKER=0 turns',
    'it off (each call then connects to the server itself); status says whether one serves the store.',
  ].join('\n'),
  options: {
    from: { type: 'string', arg: 'URL_OR_PATH', help: 'copy: the source store' },
    to: { type: 'string', arg: 'URL_OR_PATH', help: 'copy: the target store' },
    force: { type: 'boolean', help: 'copy: replace what the target holds' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  examples: [
    'lanes store status',
    'lanes store copy --from ~/.local/state/lanes/lanes.db --to postgres://lanes@db.internal/lanes',
  ],
  async run(args, io) {
    const action = args.positionals[0];
    if (action === 'broker') return broker();
    const explicit = str(args.values['store']);
    if (action === 'copy') {
      const from = str(args.values['from']);
      const to = str(args.values['to']);
      if (!from || !to) throw usageError(this, 'copy needs --from and --to');
      const r = await copyStore(from, to, { force: args.values['force'] === true });
      if (io.json) printJson(io.stdout, r);
      else
        io.stdout(
          `copied ${r.sessions} sessions, ${r.claims} claims, ${r.state} state records and ${r.journal} journal entries from ${r.from.location} to ${r.to.location}\n`,
        );
      return 0;
    }
    if (args.values['from'] !== undefined || args.values['to'] !== undefined || args.values['force'] !== undefined)
      throw usageError(this, '--from, --to and --force go with copy');
    const location = await resolveStore(explicit);
    if (action === 'migrate') {
      const info = await migrateStore(location);
      if (io.json) printJson(io.stdout, info);
      else
        io.stdout(
          `${info.location}: schema version ${info.schemaVersion} (${info.backend}${info.driver ? `, ${info.driver}` : ''}), up to date\n`,
        );
      return 0;
    }
    if (action === 'status') {
      const s = await storeStatus(location);
      if (io.json) printJson(io.stdout, s);
      else {
        io.stdout(statusText(s, terminalWidth()));
        const line = brokerLine(s);
        if (line) io.stdout(`${wrap(line, terminalWidth(), '  ')}\n`);
      }
      return 0;
    }
    throw usageError(this, `unknown action ${JSON.stringify(action)}: use status, migrate, copy or broker`);
  },
};

/**
 * The broker process (started by the store, detached): the store URL comes on stdin, never on the
 * command line. What goes wrong is written to broker.log in its private directory (kept under 1 MB).
 */
async function broker(): Promise<number> {
  const input = readStdinJson() as Partial<BrokerInput>;
  if (typeof input.connectionString !== 'string' || typeof input.dir !== 'string' || typeof input.identity !== 'string')
    throw new Error('lanes store broker: expected {connectionString, dir, identity} on stdin (the store starts it)');
  const logFile = join(input.dir, 'broker.log');
  const log = (line: string) => {
    try {
      if ((statSync(logFile, { throwIfNoEntry: false })?.size ?? 0) > 1 << 20) truncateSync(logFile, 0);
      appendFileSync(logFile, `${new Date().toISOString()} pid ${process.pid}: ${line}\n`, { mode: 0o600 });
    } catch {
      // a log the broker cannot write is not a reason to stop serving
    }
  };
  return runBroker(input as BrokerInput, process.env, log);
}

/**
 * One store, one value a line (a table of one row cut its values to fit its headers): the location
 * and the driver wrapped, never cut.
 */
export function statusText(s: StoreStatus, width: number): string {
  const rows: [string, string][] = [
    ['store', s.location],
    ['backend', s.driver ? `${s.backend} (${s.driver})` : s.backend],
    ['schema', String(s.schemaVersion)],
    ['sessions', `${s.counts.open} open, ${s.counts.ended} ended`],
    ['claims', String(s.counts.claims)],
    ['state', `${s.counts.stateRecords} record(s)`],
    ['gates held', String(s.counts.gatesHeld)],
  ];
  return rows.map(([k, v]) => `${hanging(k, v, 10, width, '')}\n`).join('');
}

/** How a team store is reached from this host: its broker (clients, server connections) or directly. */
export function brokerLine(s: StoreStatus): string | null {
  if (s.backend !== 'postgres') return null;
  const b = s.broker;
  if (!b) return `connection: ${s.connection ?? 'direct'} (no broker runs for this store on this host)`;
  const p = b.pool;
  return `connection: ${s.connection ?? 'direct'}; broker pid ${b.pid}: ${b.clients} clients, ${p.open} server connections (${p.busy} busy, ${p.waiting} waiting), ${p.refused} refused by the server`;
}
