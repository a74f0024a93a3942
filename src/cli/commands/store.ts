import { copyStore, migrateStore, resolveStore, storeStatus } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson, table } from '../output.js';

export const command: CommandSpec = {
  name: 'store',
  summary: 'Show, migrate or copy the store (SQLite file or PostgreSQL team store).',
  usage: 'store status | store migrate | store copy --from URL_OR_PATH --to URL_OR_PATH [--force]',
  description: [
    'status: backend, location (a URL is shown without its password), schema version and what it holds.',
    'migrate: bring the schema to this version now (lanes also does it on first use; run it as the',
    'database owner ahead of a rollout). A schema newer than this lanes is refused untouched.',
    'copy: sessions, claims with their fencing tokens, fencing counters, state and the decision journal;',
    'e.g. a team moving from its SQLite files to PostgreSQL. A target holding anything is refused unless',
    '--force, which replaces its sessions, claims and state (fencing counters keep the higher value, so no',
    "token is ever granted twice; the target's own journal stays, the copied entries follow it).",
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
        io.stdout(
          table(
            ['store', 'backend', 'schema', 'sessions (open/ended)', 'claims', 'state', 'gates held'],
            [
              [
                s.location,
                s.driver ? `${s.backend} (${s.driver})` : s.backend,
                s.schemaVersion,
                `${s.counts.open}/${s.counts.ended}`,
                s.counts.claims,
                s.counts.stateRecords,
                s.counts.gatesHeld,
              ],
            ],
            { shorten: { store: 'middle' } },
          ),
        );
      }
      return 0;
    }
    throw usageError(this, `unknown action ${JSON.stringify(action)}: use status, migrate or copy`);
  },
};
