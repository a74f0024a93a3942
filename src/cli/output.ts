import { createRequire } from 'node:module';
import pc from 'picocolors';
import type CliTable3 from 'cli-table3';
import type { LanesError } from '../core/errors.js';

export { pc };

export function printJson(out: (t: string) => void, value: unknown): void {
  out(JSON.stringify(value, null, 2) + '\n');
}

/** A borderless, aligned table; cli-table3 measures wide (CJK, emoji) characters correctly. */
export function table(head: string[], rows: (string | number | null | undefined)[][]): string {
  const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3;
  const t = new Table({
    head: head.map((h) => pc.bold(h)),
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const r of rows) t.push(r.map((c) => (c === null || c === undefined ? '-' : String(c))));
  return (
    t
      .toString()
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n') + '\n'
  );
}

export function formatError(e: LanesError): string {
  const lines = [`${pc.red('lanes: error:')} ${e.message}`];
  if (e.hint) lines.push(`  ${pc.dim('fix:')} ${e.hint}`);
  return lines.join('\n') + '\n';
}

export function stateColor(state: string): string {
  return state === 'live' ? pc.green(state) : state === 'dead' ? pc.red(state) : pc.dim(state);
}
