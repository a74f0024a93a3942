import pc from 'picocolors';
import type { LanesError } from '../core/errors.js';
import { shorten, terminalWidth, widthOf } from './layout.js';

export { pc };

export function printJson(out: (t: string) => void, value: unknown): void {
  out(JSON.stringify(value, null, 2) + '\n');
}

export type Cell = string | number | null | undefined;

const text = (c: Cell): string => (c === null || c === undefined ? '-' : String(c));

/** How a table fits the terminal (layout.ts terminalWidth) when its rows are wider. */
export interface Fit {
  /** Columns to fit in (default: the terminal's width). */
  width?: number;
  /** Headers of the columns left out first, in this order. */
  drop?: string[];
  /** Headers of the columns shortened next, and where (a path keeps its end: 'middle'). */
  shorten?: Record<string, 'end' | 'middle'>;
  /** Headers of the columns shortened only when nothing else is left to give (ids people copy). */
  keep?: string[];
}

const GAP = 2;
const MIN_SHORTENED = 8;

/**
 * A borderless, aligned table, drawn in time linear in its cells (cli-table3, used before, took
 * 46 s for 5,000 rows here). Widths are measured over every row first; `lines` then yields the
 * header and the rows in chunks, so a long listing streams out instead of being built whole.
 * Wider than the terminal, it leaves out the `drop` columns, then shortens the `shorten` ones
 * (widest first, down to 8), then any column but the `keep` ones, then those: no line is ever
 * longer than the width.
 */
export class Table {
  private readonly widths: number[];
  private readonly shown: number[];
  private readonly where: ('end' | 'middle')[];

  constructor(
    private readonly head: string[],
    private readonly rows: Cell[][],
    fit: Fit = {},
  ) {
    const natural = head.map((h) => widthOf(h));
    for (const r of rows)
      r.forEach((c, i) => {
        natural[i] = Math.max(natural[i] ?? 0, widthOf(text(c)));
      });
    const width = fit.width ?? terminalWidth();
    const total = (cols: number[], w: number[]) => cols.reduce((n, i) => n + (w[i] ?? 0), 0) + GAP * (cols.length - 1);
    let shown = head.map((_, i) => i);
    for (const name of fit.drop ?? []) {
      if (total(shown, natural) <= width || shown.length <= 1) break;
      shown = shown.filter((i) => head[i] !== name);
    }
    const widths = [...natural];
    const named = shown.filter((i) => fit.shorten?.[head[i] ?? ''] !== undefined);
    // Water-filling: the widest shortenable columns give up columns until the table fits.
    const others = shown.filter((i) => !(fit.keep ?? []).includes(head[i] ?? ''));
    for (const [cols, floor] of [
      [named, MIN_SHORTENED],
      [others, 3],
      [shown, 3],
    ] as const) {
      while (total(shown, widths) > width) {
        const widest = cols.filter((i) => (widths[i] ?? 0) > floor).sort((a, b) => (widths[b] ?? 0) - (widths[a] ?? 0));
        const i = widest[0];
        if (i === undefined) break;
        const next = Math.max(
          floor,
          widths[widest[1] ?? -1] ?? floor,
          (widths[i] ?? 0) - (total(shown, widths) - width),
        );
        widths[i] = next < (widths[i] ?? 0) ? next : (widths[i] ?? 0) - 1;
      }
    }
    this.widths = widths;
    this.shown = shown;
    this.where = head.map((h) => fit.shorten?.[h] ?? 'end');
  }

  private line(cells: string[], bold = false): string {
    const last = this.shown.length - 1;
    return this.shown
      .map((col, k) => {
        const w = this.widths[col] ?? 0;
        const c = shorten(cells[col] ?? '', w, this.where[col]);
        const shownText = bold ? pc.bold(c) : c;
        return k === last ? shownText : shownText + ' '.repeat(Math.max(0, w - widthOf(c)) + GAP);
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

export function table(head: string[], rows: Cell[][], fit: Fit = {}): string {
  return new Table(head, rows, fit).toString();
}

export function formatError(e: LanesError): string {
  const lines = [`${pc.red('lanes: error:')} ${e.message}`];
  if (e.hint) lines.push(`  ${pc.dim('fix:')} ${e.hint}`);
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
