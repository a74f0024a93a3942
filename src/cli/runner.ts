// Runs one lanes command: parses its options, opens the library only when the command asks for it
// (closing it heartbeats the caller's session), and turns every error into its documented exit code.
import { EXIT, LanesError } from '../core/errors.js';
import type { CommandSpec, Io } from './command.js';
import type { Lanes, LanesOptions } from '../index.js';

export type Loader = () => Promise<{ command: CommandSpec }>;

export async function runCommand(name: string, args: string[], commands: Record<string, Loader>): Promise<number> {
  const out = (t: string) => void process.stdout.write(t);
  const err = (t: string) => void process.stderr.write(t);
  const wantsJson = args.includes('--json');
  const controller = new AbortController();
  let lanes: Lanes | undefined;
  const onSignal = () => controller.abort();
  let spec: CommandSpec | undefined;
  try {
    const loader = Object.hasOwn(commands, name) ? commands[name] : undefined;
    if (!loader) {
      throw new LanesError('E_USAGE', `unknown command ${JSON.stringify(name)}`, { hint: 'see `lanes --help` for the commands' });
    }
    const { command } = await loader();
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
          const { openLanes } = await import('../index.js');
          const store = typeof parsed.values['store'] === 'string' ? parsed.values['store'] : undefined;
          lanes = await openLanes({ ...(store ? { store } : {}), ...extra });
        }
        return lanes;
      },
    };
    return await command.run(parsed, io);
  } catch (e) {
    if (spec?.failOpen) {
      err(`lanes ${spec.name}: failed open (the call was allowed): ${e instanceof Error ? e.message : String(e)}\n`);
      return EXIT.ok;
    }
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
