import pc from 'picocolors';
import type { LanesError } from '../core/errors.js';
import { recordWidth, wrap } from './layout.js';

export { pc };

export function printJson(out: (t: string) => void, value: unknown): void {
  out(JSON.stringify(value, null, 2) + '\n');
}

export { Table, table } from './table.js';
export type { Cell, Fit } from './table.js';

/**
 * An error as a person reads it: the message, then the command that fixes it, each wrapped at the
 * terminal's width (layout.ts recordWidth: whole when stderr is piped and $COLUMNS unset), the
 * lines of each indented under its text so `fix:` reads as one paragraph.
 */
export function formatError(e: LanesError, width = recordWidth(process.stderr)): string {
  return errorText('lanes: error:', e.message, e.hint, width);
}

/** `lead message` and its `fix:` line, each wrapped at `width` (null: left whole), its own lines as written. */
export function errorText(lead: string, message: string, hint: string | undefined, width: number | null): string {
  const fit = (text: string, indent: string) =>
    width === null
      ? text
      : text
          .split('\n')
          .map((line) => wrap(line, width, indent))
          .join('\n');
  const lines = [fit(`${pc.red(lead)} ${message}`, '  ')];
  // Its lines under the text after `fix: `: copied, the command reads as one.
  if (hint) lines.push(`  ${fit(`${pc.dim('fix:')} ${hint}`, '       ')}`);
  return lines.join('\n') + '\n';
}

export function stateColor(state: string): string {
  return state === 'live' ? pc.green(state) : state === 'dead' ? pc.red(state) : pc.dim(state);
}

/**
 * A session's state as a person reads it: a live session showing attention says that instead of
 * "live" (waiting for you, finished its turn, denied a call); dead, ended and unknown as they are.
 */
export function sessionStateText(s: {
  state: string;
  why: string;
  attention: { state: string } | null;
  died?: string | null;
}): string {
  // Not proven either way (out of sight, unreadable facts): kept live, said as unknown.
  if (s.state === 'live' && s.why.startsWith('unknown:')) return pc.yellow('unknown');
  // Ended after it died (its wrapper, gc, lanes stop ended it): a death stays a death.
  if (s.state === 'ended' && s.died) return pc.red('died');
  const a = s.state === 'live' ? s.attention?.state : undefined;
  if (a === 'waiting') return pc.bold(pc.magenta('waiting'));
  if (a === 'denied') return pc.red('denied');
  if (a === 'finished') return pc.cyan('finished');
  return stateColor(s.state);
}
