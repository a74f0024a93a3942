// What every command is made of, and its option parsing. Nothing here may import layout.ts (string-width):
// the hot commands parse their options with this module in every agent tool call (help.ts wraps text).
import { parseArgs } from 'node:util';
import { LanesError } from '../core/errors.js';
import type { Lanes, LanesOptions } from '../index.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** `--flag` alone is allowed and means the empty string (as in --wait[=DURATION]). */
  optionalValue?: boolean;
  /** Shown in --help, e.g. "--ticket T". */
  arg?: string;
  /** Passed by lanes itself (lanes new's wrapper), never by a person: in --help, not in the usage line. */
  internal?: boolean;
  help: string;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** Everything after the first `--`. */
  rest: string[];
}

export interface Io {
  stdout: (text: string) => void;
  /** Resolves once what stdout holds has gone to its reader (at once unless it is behind): a long listing waits on it between chunks, so its memory stays bounded. */
  drained: () => Promise<void>;
  stderr: (text: string) => void;
  json: boolean;
  /** Opens the library once per call, with --store applied. */
  lanes: (extra?: Partial<LanesOptions>) => Promise<Lanes>;
  /** Aborted on Ctrl-C / SIGTERM, so waits end with nothing half-done. */
  signal: AbortSignal;
}

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  description?: string;
  options: Record<string, OptionSpec>;
  /** Whether `-- ARGS…` is accepted (start, and later exec/commit). */
  acceptsRest?: boolean;
  minPositionals?: number;
  maxPositionals?: number;
  examples?: string[];
  /**
   * Every error is reported on stderr and the exit code is 0 (`lanes hook`: an agent must never be
   * blocked by lanes failing, only by a deliberate deny).
   */
  failOpen?: boolean;
  run(args: ParsedArgs, io: Io): Promise<number>;
}

export const COMMON_OPTIONS: Record<string, OptionSpec> = {
  json: { type: 'boolean', help: 'print machine-readable JSON on stdout' },
  store: { type: 'string', arg: 'PATH', help: 'the store file (default $LANES_STORE, else $LANES_HOME/lanes.db)' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
};

/** `--session S` of a command that acts as a session: the runner opens the library as S (an id or a name). */
export const ACT_AS: OptionSpec = {
  type: 'string',
  arg: 'S',
  help: 'act as session S: its id, label, ticket or tmux name (default: the acting session)',
};

export function usageError(spec: CommandSpec, message: string): LanesError {
  return new LanesError('E_USAGE', `${spec.name}: ${message}`, { hint: `see \`lanes ${spec.name} --help\`` });
}

/** Parses argv against the spec; every parse problem is a usage error (exit 2) naming the command. */
export function parseCommandArgs(spec: CommandSpec, argv: string[]): ParsedArgs {
  const dash = argv.indexOf('--');
  const optional = new Set(
    Object.entries(spec.options)
      .filter(([, o]) => o.optionalValue)
      .map(([k]) => `--${k}`),
  );
  const head = (dash < 0 ? argv : argv.slice(0, dash)).map((a) => (optional.has(a) ? `${a}=` : a));
  const rest = dash < 0 ? [] : argv.slice(dash + 1);
  if (dash >= 0 && !spec.acceptsRest) throw usageError(spec, 'does not take `-- ARGS`');
  const options = { ...COMMON_OPTIONS, ...spec.options };
  const config = Object.fromEntries(
    Object.entries(options).map(([k, o]) => [
      k,
      { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) },
    ]),
  );
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    // No option at all (`lanes hook claude-code pre-tool-use`, in every tool call): parseArgs
    // would give exactly this, and loading it costs ~0.4 ms of the call.
    parsed = head.some((a) => a.startsWith('-'))
      ? parseArgs({ args: head, options: config, allowPositionals: true, strict: true })
      : { values: {}, positionals: [...head] };
  } catch (e) {
    throw usageError(
      spec,
      (e as Error).message.replace(/\. To specify a positional.*$/s, '').replace(/^Unknown option/, 'unknown option'),
    );
  }
  const positionals = parsed.positionals;
  if (!parsed.values['help']) {
    if (positionals.length < (spec.minPositionals ?? 0))
      throw usageError(spec, `missing arguments (usage: lanes ${spec.usage})`);
    if (spec.maxPositionals !== undefined && positionals.length > spec.maxPositionals) {
      throw usageError(
        spec,
        `unexpected argument ${JSON.stringify(positionals[spec.maxPositionals])} (usage: lanes ${spec.usage})`,
      );
    }
  }
  return { values: parsed.values as ParsedArgs['values'], positionals, rest };
}

export const EXIT_CODES_TEXT =
  'Exit codes: 0 ok, 1 error, 2 usage, 3 held or in conflict, 4 wrong owner/integrity/fencing, 5 timed out or aborted, 6 not allowed (lanes allow).';

export function str(v: ParsedArgs['values'][string]): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Where `lanes --help` lists a command: by the task it serves (help.ts names them). */
export type CommandGroup = 'fleet' | 'sessions' | 'claims' | 'git' | 'record' | 'admin';

/**
 * One command of the registry (registry.ts): how it is listed and loaded. Its usage is its spec's
 * alone (`lanes CMD --help`): a second, shorter one here had drifted from it.
 */
export interface CommandEntry {
  name: string;
  group: CommandGroup;
  summary: string;
  /** Runs inside every agent tool call or wraps every command: bundled into dist/hot.cjs. */
  hot: boolean;
  /** A look a person types often (`lanes ls`): bundled into dist/quick.cjs, started without the whole CLI. */
  quick?: boolean;
  load: () => Promise<{ command: CommandSpec }>;
}
