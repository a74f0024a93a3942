import { readFileSync } from 'node:fs';
import { LanesError } from '../core/errors.js';
import type { OptionSpec, ParsedArgs } from './command.js';
import { str } from './command.js';

// `--prompt TEXT` / `--prompt-file FILE` of lanes new and up: the agent's first task. `{ticket}` in
// either (and in the file's name: one file per ticket) becomes the ticket; `--prompt-file -` reads
// stdin once.

export const TASK_OPTIONS: Record<string, OptionSpec> = {
  prompt: {
    type: 'string',
    arg: 'TEXT',
    help: "the agent's first task; {ticket} becomes the ticket (kept off the command line: see below)",
  },
  'prompt-file': {
    type: 'string',
    arg: 'FILE',
    help: 'the task from FILE (- : stdin); {ticket} in its name or text: one file or text per ticket',
  },
};

let stdinText: string | undefined;

/** The task for `ticket`, or null without either option. */
export function taskFor(args: ParsedArgs, ticket: string): string | null {
  const text = str(args.values['prompt']);
  const file = str(args.values['prompt-file']);
  if (text !== undefined && file !== undefined)
    throw new LanesError('E_USAGE', 'give --prompt or --prompt-file, not both');
  if (text !== undefined) return text.replaceAll('{ticket}', ticket);
  if (file === undefined) return null;
  if (file === '-') return (stdinText ??= readFileSync(0, 'utf8')).replaceAll('{ticket}', ticket);
  const path = file.replaceAll('{ticket}', ticket);
  try {
    return readFileSync(path, 'utf8').replaceAll('{ticket}', ticket);
  } catch (e) {
    throw new LanesError(
      'E_USAGE',
      `--prompt-file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      {
        hint: file.includes('{ticket}') ? `write the task of ${ticket} to ${path}` : 'name a readable text file',
      },
    );
  }
}

/** --resume or --fresh (not both): what lanes new does about the ticket's last session's work. */
export function goOnOf(args: ParsedArgs): 'resume' | 'fresh' | null {
  if (args.values['resume'] && args.values['fresh'])
    throw new LanesError('E_USAGE', 'give --resume or --fresh, not both');
  return args.values['resume'] ? 'resume' : args.values['fresh'] ? 'fresh' : null;
}
