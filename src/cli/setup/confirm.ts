import { LanesError } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { load } from '../../core/builtins.js';
import type * as ReadlinePromises from 'node:readline/promises';

/**
 * Goes on when the person said yes: --yes, or "y" typed on the terminal (asked on stderr, so
 * stdout keeps only the plan, or the JSON). Without a terminal nobody can answer: a script must
 * say --yes, and is told so (exit 2). "No" changes nothing (exit 5, as an abort does).
 */
/** `again`: the command as it is run again with --yes (said in the refusal). */
export async function confirm(spec: CommandSpec, yes: boolean, question: string, again: string): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY || !process.stderr.isTTY)
    throw new LanesError(
      'E_USAGE',
      `lanes ${spec.name}: stdin is not a terminal, so lanes cannot ask before it writes: add --yes to go ahead`,
      { hint: `${again} (--dry-run only shows what it would do)` },
    );
  // Loaded as a built-in, not import(): the bundle runs in a vm.Script (core/code-cache.ts), which has no
  // dynamic import ("A dynamic import callback was not specified"); scripts/build.mjs checks none is left.
  const { createInterface } = load('node:readline/promises') as typeof ReadlinePromises;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  let answer: string;
  try {
    answer = (await rl.question(`${question} [y/N] `)).trim();
  } finally {
    rl.close();
  }
  if (!/^y(es)?$/i.test(answer))
    throw new LanesError('E_ABORTED', `lanes ${spec.name}: you answered no; nothing was changed`, {
      hint: `run it again and answer y, or: ${again}`,
    });
}
