// The lanes binary. Kept lean: only this file loads at start-up; each command (and the store's
// native module) is imported when it is actually used.
import { EXIT, LanesError } from '../core/errors.js';
import type { CommandSpec, Io } from './command.js';
import type { Lanes, LanesOptions } from '../services/lanes.js';

type Loader = () => Promise<{ command: CommandSpec }>;

export const COMMANDS: Record<string, Loader> = {
  start: () => import('./commands/start.js'),
  ls: () => import('./commands/ls.js'),
  end: () => import('./commands/end.js'),
  whoami: () => import('./commands/whoami.js'),
  claim: () => import('./commands/claim.js'),
  release: () => import('./commands/release.js'),
  claims: () => import('./commands/claims.js'),
  check: () => import('./commands/check.js'),
  state: () => import('./commands/state.js'),
  handoff: () => import('./commands/handoff.js'),
  path: () => import('./commands/path.js'),
  commit: () => import('./commands/commit.js'),
  snapshot: () => import('./commands/snapshot.js'),
  snapshots: () => import('./commands/snapshots.js'),
  restore: () => import('./commands/restore.js'),
  sweep: () => import('./commands/sweep.js'),
  conflicts: () => import('./commands/conflicts.js'),
  land: () => import('./commands/land.js'),
  adopt: () => import('./commands/adopt.js'),
  guard: () => import('./commands/guard.js'),
  doctor: () => import('./commands/doctor.js'),
  port: () => import('./commands/port.js'),
  ports: () => import('./commands/ports.js'),
  env: () => import('./commands/env.js'),
  exec: () => import('./commands/exec.js'),
  demo: () => import('./commands/demo.js'),
};

const VERSION = '0.1.0';

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const out = (t: string) => void process.stdout.write(t);
  const err = (t: string) => void process.stderr.write(t);
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const { overview } = await import('./help.js');
    out(overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    out(`lanes ${VERSION}\n`);
    return EXIT.ok;
  }
  const wantsJson = args.includes('--json');
  const controller = new AbortController();
  let lanes: Lanes | undefined;
  const onSignal = () => controller.abort();
  try {
    const loader = COMMANDS[name];
    if (!loader) {
      throw new LanesError('E_USAGE', `unknown command ${JSON.stringify(name)}`, { hint: 'see `lanes --help` for the commands' });
    }
    const { command } = await loader();
    const { parseCommandArgs, helpText } = await import('./command.js');
    const parsed = parseCommandArgs(command, args);
    if (parsed.values['help']) {
      out(helpText(command));
      return EXIT.ok;
    }
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const io: Io = {
      stdout: out,
      stderr: err,
      json: parsed.values['json'] === true,
      signal: controller.signal,
      lanes: async (extra: Partial<LanesOptions> = {}) => {
        if (!lanes) {
          const { openLanes } = await import('../services/lanes.js');
          const store = typeof parsed.values['store'] === 'string' ? parsed.values['store'] : undefined;
          lanes = await openLanes({ ...(store ? { store } : {}), ...extra });
        }
        return lanes;
      },
    };
    const code = await command.run(parsed, io);
    // Every lanes call made by a session refreshes its lease.
    if (lanes?.sessionId) await lanes.heartbeat().catch(() => false);
    return code;
  } catch (e) {
    return report(e, wantsJson, out, err);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await lanes?.close().catch(() => undefined);
  }
}

async function report(e: unknown, json: boolean, out: (t: string) => void, err: (t: string) => void): Promise<number> {
  if (e instanceof LanesError) {
    if (json) out(JSON.stringify(e.toJSON(), null, 2) + '\n');
    else err((await import('./output.js')).formatError(e));
    return e.exitCode;
  }
  const message = e instanceof Error ? e.message : String(e);
  err(`lanes: internal error: ${message}\n`);
  if (process.env['LANES_DEBUG']) err(`${(e as Error).stack ?? ''}\n`);
  else err('  run it again with LANES_DEBUG=1 for the stack, and report it\n');
  return EXIT.error;
}
