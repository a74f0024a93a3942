import pc from 'picocolors';
import { pathTail, shorten, terminalWidth, widthOf, wrapCell } from './layout.js';

export type Cell = string | number | null | undefined;

const text = (c: Cell): string => (c === null || c === undefined ? '-' : String(c));

/**
 * How a table fits the terminal (layout.ts terminalWidth) when its rows are wider. Each table
 * names what it can spare, least useful first, so the columns a person acts on stay whole.
 */
export interface Fit {
  /** Columns to fit in (default: the terminal's width). */
  width?: number;
  /** Headers of the columns left out first, in this order, while the table is wider than the width. */
  drop?: string[];
  /** Headers of the columns left out next, in this order, only while the rest does not fit even at its floors. */
  spare?: string[];
  /**
   * Headers of the columns shortened, and where: 'end', 'middle', or 'path' (kept down to its last
   * two parts, `…/shop.lanes/shop-1`, before anything else is cut of it).
   */
  shorten?: Record<string, 'end' | 'middle' | 'path'>;
  /** Headers of the columns wrapped at spaces onto at most this many lines instead of cut. */
  wrap?: Record<string, number>;
  /** Headers of the columns shortened only when nothing else is left to give (ids people copy). */
  keep?: string[];
}

const GAP = 2;
const MIN_SHORTENED = 8;
/** A wrapped column keeps its longest word whole up to this width; a longer one is broken across lines. */
const WORD_FLOOR = 24;
/** A path keeps its last two parts whole up to this width. */
const PATH_FLOOR = 40;

/**
 * A borderless, aligned table, drawn in time linear in its cells (cli-table3, used before, took
 * 46 s for 5,000 rows here). Widths are measured over every row first; `lines` then yields the
 * header and the rows in chunks, so a long listing streams out instead of being built whole.
 * Wider than the terminal, it leaves out the `drop` columns; then the `spare` ones while the rest
 * cannot fit at its floors (a `keep` column or one not named: whole; a path: its last two parts; a
 * wrapped column: its longest word; another named one: 8); then narrows the named ones to those
 * floors (widest first), then below them, then any column but the `keep` ones, then those: no
 * line is ever longer than the width.
 */
export class Table {
  private readonly widths: number[];
  private readonly shown: number[];
  private readonly where: ('end' | 'middle' | 'path')[];
  private readonly lines: (number | undefined)[];

  constructor(
    private readonly head: string[],
    private readonly rows: Cell[][],
    fit: Fit = {},
  ) {
    const natural = head.map((h) => widthOf(h));
    const named = (i: number) => fit.shorten?.[head[i] ?? ''] !== undefined || fit.wrap?.[head[i] ?? ''] !== undefined;
    // What a column keeps before anything else is cut: measured only for paths and wrapped columns.
    const floor = head.map((h) => (fit.keep?.includes(h) ? Infinity : 0));
    for (const r of rows)
      r.forEach((c, i) => {
        const t = text(c);
        natural[i] = Math.max(natural[i] ?? 0, widthOf(t));
        const name = head[i] ?? '';
        if (fit.shorten?.[name] === 'path')
          floor[i] = Math.max(floor[i] ?? 0, Math.min(PATH_FLOOR, widthOf(pathTail(t))));
        else if (fit.wrap?.[name] !== undefined)
          for (const word of t.split(' ')) floor[i] = Math.max(floor[i] ?? 0, Math.min(WORD_FLOOR, widthOf(word)));
      });
    const floorOf = (i: number) =>
      Math.min(natural[i] ?? 0, named(i) ? Math.max(MIN_SHORTENED, floor[i] ?? 0) : Infinity);
    const width = fit.width ?? terminalWidth();
    const total = (cols: number[], w: (i: number) => number) =>
      cols.reduce((n, i) => n + w(i), 0) + GAP * (cols.length - 1);
    let shown = head.map((_, i) => i);
    const leaveOut = (names: string[] | undefined, w: (i: number) => number) => {
      for (const name of names ?? []) {
        if (total(shown, w) <= width || shown.length <= 1) break;
        shown = shown.filter((i) => head[i] !== name);
      }
    };
    leaveOut(fit.drop, (i) => natural[i] ?? 0);
    leaveOut(fit.spare, floorOf);
    const widths = [...natural];
    const others = shown.filter((i) => !(fit.keep ?? []).includes(head[i] ?? ''));
    const narrowed = shown.filter((i) => named(i) && !(fit.keep ?? []).includes(head[i] ?? ''));
    for (const [cols, least] of [
      [narrowed, floorOf],
      [narrowed, () => MIN_SHORTENED],
      [others, () => 3],
      [shown, () => 3],
    ] as const)
      narrow(cols, least, widths, () => total(shown, (i) => widths[i] ?? 0) - width);
    this.where = head.map((h) => fit.shorten?.[h] ?? 'end');
    this.lines = head.map((h) => fit.wrap?.[h]);
    this.shown = shown;
    this.widths = widths;
    this.giveBack(natural);
  }

  /**
   * A path cut shows whole parts, often narrower than its column: what it leaves unused goes to
   * the columns narrowed below their natural width (a wrapped one then needs fewer lines).
   */
  private giveBack(natural: number[]): void {
    for (const col of this.shown) {
      if (this.where[col] !== 'path') continue;
      const w = this.widths[col] ?? 0;
      let used = widthOf(shorten(this.head[col] ?? '', w));
      for (const r of this.rows) used = Math.max(used, widthOf(shorten(text(r[col]), w, 'path')));
      let spare = w - used;
      this.widths[col] = used;
      for (const other of this.shown) {
        const room = Math.min(spare, (natural[other] ?? 0) - (this.widths[other] ?? 0));
        if (other === col || room <= 0) continue;
        this.widths[other] = (this.widths[other] ?? 0) + room;
        spare -= room;
      }
      this.widths[col] = (this.widths[col] ?? 0) + spare;
    }
  }

  /** One cell as the lines it takes: wrapped onto at most its column's lines, else cut to one. */
  private cell(col: number, value: string): string[] {
    const w = this.widths[col] ?? 0;
    const most = this.lines[col];
    if (most === undefined || widthOf(value) <= w) return [shorten(value, w, this.where[col])];
    const lines = wrapCell(value, w).split('\n');
    if (lines.length <= most) return lines;
    return [...lines.slice(0, most - 1), shorten(lines.slice(most - 1).join(' '), w)];
  }

  private line(cells: string[], bold = false): string {
    const last = this.shown.length - 1;
    const columns = this.shown.map((col) =>
      bold ? [shorten(cells[col] ?? '', this.widths[col] ?? 0)] : this.cell(col, cells[col] ?? ''),
    );
    const height = Math.max(...columns.map((c) => c.length));
    const out: string[] = [];
    for (let n = 0; n < height; n++)
      out.push(
        this.shown
          .map((col, k) => {
            const c = columns[k]?.[n] ?? '';
            const shownText = bold ? pc.bold(c) : c;
            return k === last
              ? shownText
              : shownText + ' '.repeat(Math.max(0, (this.widths[col] ?? 0) - widthOf(c)) + GAP);
          })
          .join('')
          .trimEnd(),
      );
    return out.join('\n');
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

/**
 * Water-filling: the widest of `cols` above its least width gives up columns until `excess()` is
 * none (each step at most down to the next widest, so the widest shrink together).
 */
function narrow(cols: readonly number[], least: (i: number) => number, widths: number[], excess: () => number): void {
  while (excess() > 0) {
    const widest = cols.filter((i) => (widths[i] ?? 0) > least(i)).sort((a, b) => (widths[b] ?? 0) - (widths[a] ?? 0));
    const i = widest[0];
    if (i === undefined) return;
    const next = Math.max(least(i), widths[widest[1] ?? -1] ?? 0, (widths[i] ?? 0) - excess());
    widths[i] = next < (widths[i] ?? 0) ? next : (widths[i] ?? 0) - 1;
  }
}

export function table(head: string[], rows: Cell[][], fit: Fit = {}): string {
  return new Table(head, rows, fit).toString();
}
