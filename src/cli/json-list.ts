import type { Io } from './command.js';

/** Every line after the first moved right by `pad` (JSON.stringify writes a newline only between tokens). */
const indent = (text: string, pad: string) => text.replace(/\n/g, `\n${pad}`);

/**
 * Writes `items` as printJson (JSON.stringify(items, null, 2)) would, byte for byte, each item's
 * array `key` (its last field) filled a page at a time from `pages`: a listing of any length in
 * the memory of one page, waiting for stdout to drain between pages.
 */
export async function printJsonPaged<T extends object, E>(
  io: Pick<Io, 'stdout' | 'drained'>,
  items: readonly T[],
  key: string,
  pages: (item: T) => AsyncIterable<E[]> | null,
): Promise<void> {
  if (items.length === 0) {
    io.stdout('[]\n');
    return;
  }
  io.stdout('[\n');
  for (const [i, item] of items.entries()) {
    const { [key]: _, ...rest } = item as Record<string, unknown>;
    const whole = `  ${indent(JSON.stringify({ ...rest, [key]: [] }, null, 2), '  ')}`;
    const empty = '[]\n  }';
    let started = false;
    for await (const page of pages(item) ?? []) {
      if (page.length === 0) continue;
      const entries = page.map((e) => `      ${indent(JSON.stringify(e, null, 2), '      ')}`).join(',\n');
      io.stdout(started ? `,\n${entries}` : `${whole.slice(0, -empty.length)}[\n${entries}`);
      started = true;
      await io.drained();
    }
    io.stdout(started ? '\n    ]\n  }' : whole);
    io.stdout(i < items.length - 1 ? ',\n' : '\n]\n');
  }
}
