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
 * The first of a table's two passes: each row measured as it comes and let go (`lanes ls --all`
 * reads its sessions a page at a time, twice: to measure, then to draw). What it keeps is a few
 * numbers per column, and the distinct values of a 'path' column (its cut needs them once the
 * widths are known).
 */
export class TableMeasure {
  private readonly natural: number[];
  private readonly floor: number[];
  private readonly paths = new Map<number, Set<string>>();

  constructor(
    private readonly head: string[],
    private readonly fit: Fit = {},
  ) {
    this.natural = head.map((h) => widthOf(h));
    // What a column keeps before anything else is cut: measured only for paths and wrapped columns.
    this.floor = head.map((h) => (fit.keep?.includes(h) ? Infinity : 0));
    head.forEach((h, i) => {
      if (fit.shorten?.[h] === 'path') this.paths.set(i, new Set());
    });
  }

  add(row: readonly Cell[]): void {
    row.forEach((c, i) => {
      const t = text(c);
      this.natural[i] = Math.max(this.natural[i] ?? 0, widthOf(t));
      const name = this.head[i] ?? '';
      const paths = this.paths.get(i);
      if (paths) {
        paths.add(t);
        this.floor[i] = Math.max(this.floor[i] ?? 0, Math.min(PATH_FLOOR, widthOf(pathTail(t))));
      } else if (this.fit.wrap?.[name] !== undefined)
        for (const word of t.split(' '))
          this.floor[i] = Math.max(this.floor[i] ?? 0, Math.min(WORD_FLOOR, widthOf(word)));
    });
  }

  /**
   * The columns shown and their widths. Wider than the terminal, the table leaves out the `drop`
   * columns; then the `spare` ones while the rest cannot fit at its floors (a `keep` column or one
   * not named: whole; a path: its last two parts; a wrapped column: its longest word; another
   * named one: 8); then narrows the named ones to those floors (widest first), then below them,
   * then any column but the `keep` ones, then those: no line is ever longer than the width.
   */
  layout(): TableLayout {
    const { head, fit, natural, floor } = this;
    const named = (i: number) => fit.shorten?.[head[i] ?? ''] !== undefined || fit.wrap?.[head[i] ?? ''] !== undefined;
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
    const where = head.map((h) => fit.shorten?.[h] ?? 'end');
    giveBack(shown, widths, natural, (col, w) => {
      if (!this.paths.has(col)) return -1;
      let used = widthOf(shorten(head[col] ?? '', w));
      for (const p of this.paths.get(col) ?? []) used = Math.max(used, widthOf(shorten(p, w, 'path')));
      return used;
    });
    return new TableLayout(
      head,
      shown,
      widths,
      where,
      head.map((h) => fit.wrap?.[h]),
    );
  }
}

/** The second pass: a table's header and rows drawn at the widths measured. */
export class TableLayout {
  constructor(
    private readonly head: string[],
    private readonly shown: number[],
    private readonly widths: number[],
    private readonly where: ('end' | 'middle' | 'path')[],
    private readonly lines: (number | undefined)[],
  ) {}

  header(): string {
    return this.draw(this.head, true);
  }

  /** One row as the lines it takes (no newline at the end). */
  row(cells: readonly Cell[]): string {
    return this.draw(cells.map(text), false);
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

  private draw(cells: string[], bold: boolean): string {
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
}

/**
 * A borderless, aligned table, drawn in time linear in its cells (cli-table3, used before, took
 * 46 s for 5,000 rows here): its rows measured (TableMeasure), then drawn in chunks.
 */
export class Table {
  private readonly layout: TableLayout;

  constructor(
    head: string[],
    private readonly rows: Cell[][],
    fit: Fit = {},
  ) {
    const measure = new TableMeasure(head, fit);
    for (const r of rows) measure.add(r);
    this.layout = measure.layout();
  }

  *chunks(rowsPerChunk = 1000): Generator<string> {
    let out = this.layout.header() + '\n';
    for (let i = 0; i < this.rows.length; i++) {
      out += this.layout.row(this.rows[i] ?? []) + '\n';
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
 * A path cut shows whole parts, often narrower than its column: what it leaves unused (`used`: the
 * widest cut of a path column at width w, -1 for another column) goes to the columns narrowed
 * below their natural width (a wrapped one then needs fewer lines).
 */
function giveBack(
  shown: number[],
  widths: number[],
  natural: number[],
  used: (col: number, w: number) => number,
): void {
  for (const col of shown) {
    const w = widths[col] ?? 0;
    const usedHere = used(col, w);
    if (usedHere < 0) continue;
    let spare = w - usedHere;
    widths[col] = usedHere;
    for (const other of shown) {
      const room = Math.min(spare, (natural[other] ?? 0) - (widths[other] ?? 0));
      if (other === col || room <= 0) continue;
      widths[other] = (widths[other] ?? 0) + room;
      spare -= room;
    }
    widths[col] = (widths[col] ?? 0) + spare;
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
