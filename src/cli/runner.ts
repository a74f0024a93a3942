// Runs one lanes command: parses its options, opens the library only when the command asks for it
// (closing it heartbeats the caller's session), and turns every error into its documented exit code.
import { EXIT, LanesError } from '../core/errors.js';
import type { Lanes, LanesOptions } from '../index.js';
import type { CommandSpec, Io } from './command.js';
import { pipeSafeStdout } from './stdout.js';
import type { CommandEntry } from './command.js';

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
  // The abort signal (Ctrl-C, SIGTERM, a reader gone) is made when a command first asks for it: an
  // ordinary command at once; a hot one (a hook in every tool call) only when it waits, since the
  // controller and the signal handlers load modules of their own (~0.3 M instructions a call). A
  // hook that never asks dies on a signal as any process does: the store is crash-safe.
  let controller: AbortController | undefined;
  const onSignal = () => controller?.abort();
  const aborter = (): AbortController => {
    if (!controller) {
      controller = new AbortController();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
    }
    return controller;
  };
  // A reader that went away (lanes ls | head) ends the command as Ctrl-C would, silently.
  const stdout = seams.stdout ? null : pipeSafeStdout(() => aborter().abort());
  const out = seams.stdout ?? ((t: string) => stdout?.write(t));
  const err = seams.stderr ?? ((t: string) => void process.stderr.write(t));
  const open = seams.open ?? openReal;
  const wantsJson = args.includes('--json');
  let lanes: Lanes | undefined;
  let spec: CommandSpec | undefined;
  let succeeded = false;
  try {
    // The registry is read only when the caller gave no list (hot.ts gives the hot commands').
    const entry = (seams.commands ?? (await import('./registry.js')).COMMANDS).find((c) => c.name === name);
    if (!entry) throw await unknownCommand(name);
    const { command } = await entry.load();
    spec = command;
    const { parseCommandArgs } = await import('./command.js');
    const parsed = parseCommandArgs(command, args);
    if (parsed.values['help']) {
      // help.js wraps text with string-width, whose set-up (an Intl.Segmenter, a Unicode property
      // regex: ICU's data) cost ~20 ms of every hook call on Node 24 while command.js carried it.
      out((await import('./help.js')).helpText(command));
      return EXIT.ok;
    }
    if (!entry.hot) aborter();
    const io: Io = {
      stdout: out,
      stderr: err,
      drained: () => stdout?.drained() ?? Promise.resolve(),
      json: parsed.values['json'] === true,
      get signal() {
        return aborter().signal;
      },
      lanes: async (extra: Partial<LanesOptions> = {}) => {
        if (!lanes) {
          const store = typeof parsed.values['store'] === 'string' ? parsed.values['store'] : undefined;
          // --session NAME: the library acts as it (a label, ticket or tmux name resolved to its id),
          // and the command's own per-call use of the option gets that id.
          const given = typeof parsed.values['session'] === 'string' ? parsed.values['session'] : undefined;
          const acting = given !== undefined && extra.session === undefined ? { session: given } : {};
          lanes = await open({ ...(store ? { store } : {}), ...acting, ...extra });
          if (given !== undefined && 'session' in acting && lanes.sessionId) parsed.values['session'] = lanes.sessionId;
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
    if (controller) {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
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

/** An unknown command, with the nearest one's name when a typo is likely (`lanes clam`). */
async function unknownCommand(name: string): Promise<LanesError> {
  const names = (await import('./registry.js')).COMMANDS.map((c) => c.name);
  const { distance } = await import('fastest-levenshtein');
  // Within two edits, and fewer than half the name's letters (so `ab` suggests nothing far off).
  const near = names
    .map((n) => ({ n, d: distance(name.toLowerCase(), n) }))
    .filter(({ d }) => d <= 2 && d < Math.max(2, name.length / 2))
    .sort((a, b) => a.d - b.d);
  // The nearest, all of them when tied (`stat`: start or state).
  const best = near.filter(({ d }) => d === near[0]?.d).map(({ n }) => `\`lanes ${n}\``);
  const meant = best.length > 0 ? `did you mean ${best.join(' or ')}? ` : '';
  return new LanesError('E_USAGE', `unknown command ${JSON.stringify(name)}`, {
    hint: `${meant}see \`lanes --help\` for the commands`,
  });
}
