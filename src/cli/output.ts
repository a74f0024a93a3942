import pc from 'picocolors';
import stringWidth from 'string-width';
import type { LanesError } from '../core/errors.js';

export { pc };

export function printJson(out: (t: string) => void, value: unknown): void {
  out(JSON.stringify(value, null, 2) + '\n');
}

export type Cell = string | number | null | undefined;

// Printable ASCII is one column per character; anything else (colours, CJK, emoji) is measured.
const PLAIN = /^[\x20-\x7e]*$/;
const widthOf = (text: string): number => (PLAIN.test(text) ? text.length : stringWidth(text));
const text = (c: Cell): string => (c === null || c === undefined ? '-' : String(c));

/**
 * A borderless, aligned table, drawn in time linear in its cells (cli-table3, used before, took
 * 46 s for 5,000 rows here). Widths are measured over every row first; `lines` then yields the
 * header and the rows in chunks, so a long listing streams out instead of being built whole.
 */
export class Table {
  private readonly widths: number[];

  constructor(
    private readonly head: string[],
    private readonly rows: Cell[][],
  ) {
    this.widths = head.map((h) => widthOf(h));
    for (const r of rows)
      r.forEach((c, i) => {
        this.widths[i] = Math.max(this.widths[i] ?? 0, widthOf(text(c)));
      });
  }

  private line(cells: string[], bold = false): string {
    const last = cells.length - 1;
    return cells
      .map((c, i) => {
        const shown = bold ? pc.bold(c) : c;
        return i === last ? shown : shown + ' '.repeat(Math.max(0, (this.widths[i] ?? 0) - widthOf(c)) + 2);
      })
      .join('')
      .trimEnd();
  }

  *chunks(rowsPerChunk = 1000): Generator<string> {
    let out = this.line(this.head, true) + '\n';
    for (let i = 0; i < this.rows.length; i++) {
      out += this.line((this.rows[i] ?? []).map(text)) + '\n';
      if ((i + 1) % rowsPerChunk === 0) {
        yield out;
        out = '';
      }
    }
    if (out) yield out;
  }

  toString(): string {
    return [...this.chunks()].join('');
  }
}

export function table(head: string[], rows: Cell[][]): string {
  return new Table(head, rows).toString();
}

export function formatError(e: LanesError): string {
  const lines = [`${pc.red('lanes: error:')} ${e.message}`];
  if (e.hint) lines.push(`  ${pc.dim('fix:')} ${e.hint}`);
  return lines.join('\n') + '\n';
}

export function stateColor(state: string): string {
  return state === 'live' ? pc.green(state) : state === 'dead' ? pc.red(state) : pc.dim(state);
}
