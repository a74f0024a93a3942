// Runs one lanes command: parses its options, opens the library only when the command asks for it
// (closing it heartbeats the caller's session), and turns every error into its documented exit code.
import { EXIT, LanesError } from '../core/errors.js';
import type { Lanes, LanesOptions } from '../index.js';
import type { CommandSpec, Io } from './command.js';
import { COMMANDS } from './registry.js';
import { pipeSafeStdout } from './stdout.js';
import type { CommandEntry } from './registry.js';

/**
 * What a command runs against. The defaults are the real ones; a test swaps `open` for a library
 * that records what it was asked (the seam that tests flag parsing apart from behaviour, as the
 * GitHub CLI's runF does) and captures the output.
 */
export interface RunSeams {
  commands?: readonly CommandEntry[];
  open?: (options: LanesOptions) => Promise<Lanes>;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

async function openReal(options: LanesOptions): Promise<Lanes> {
  // services/lanes.js, not the package's index: the index also brings the store's admin, the
  // worktree includes and the rest of the public API, initialized in every hot command for nothing.
  const { openLanes } = await import('../services/lanes.js');
  return openLanes(options);
}

export async function runCommand(name: string, args: string[], seams: RunSeams = {}): Promise<number> {
  const controller = new AbortController();
  // A reader that went away (lanes ls | head) ends the command as Ctrl-C would, silently.
  const stdout = seams.stdout ? null : pipeSafeStdout(() => controller.abort());
  const out = seams.stdout ?? ((t: string) => stdout?.write(t));
  const err = seams.stderr ?? ((t: string) => void process.stderr.write(t));
  const open = seams.open ?? openReal;
  const wantsJson = args.includes('--json');
  let lanes: Lanes | undefined;
  const onSignal = () => controller.abort();
  let spec: CommandSpec | undefined;
  let succeeded = false;
  try {
    const entry = (seams.commands ?? COMMANDS).find((c) => c.name === name);
    if (!entry)
      throw new LanesError('E_USAGE', `unknown command ${JSON.stringify(name)}`, {
        hint: 'see `lanes --help` for the commands',
      });
    const { command } = await entry.load();
    spec = command;
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
          const store = typeof parsed.values['store'] === 'string' ? parsed.values['store'] : undefined;
          lanes = await open({ ...(store ? { store } : {}), ...extra });
        }
        return lanes;
      },
    };
    const code = await command.run(parsed, io);
    succeeded = true;
    if (lanes && !entry.hot) await reapInBackground(lanes);
    return code;
  } catch (e) {
    if (spec?.failOpen) {
      err(`lanes ${spec.name}: failed open (the call was allowed): ${e instanceof Error ? e.message : String(e)}\n`);
      return EXIT.ok;
    }
    return report(e, wantsJson, out, err);
  } finally {
    stdout?.dispose();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    // A command that failed (a locked store, a timeout, Ctrl-C) did not act as the session: no
    // heartbeat, which could wait on the same lock again.
    await lanes?.close({ heartbeat: succeeded }).catch(() => undefined);
  }
}

/**
 * After an ordinary command (never `hook` or `exec`, which run in every tool call): end a few
 * sessions recorded dead for the grace period (services/doctor/gc.ts), bounded so no command pays for
 * the whole pile; and prune journal entries past their retention, a few batches at a time. Its
 * trouble is never the command's.
 */
async function reapInBackground(lanes: Lanes): Promise<void> {
  try {
    await lanes.gc({ background: true });
  } catch {
    // a locked store, a git failure: the next command tries again
  }
  try {
    await lanes.journal.prune({ background: true });
  } catch {
    // a bad [journal] retention is told by the commands that read the config
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
