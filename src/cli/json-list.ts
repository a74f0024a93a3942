import type { Io } from './command.js';

/** Every line after the first moved right by `pad` (JSON.stringify writes a newline only between tokens). */
const indent = (text: string, pad: string) => text.replace(/\n/g, `\n${pad}`);

/** Output gathered to this many characters before one write: a write per item cost 3 syscalls a session. */
const FLUSH_AT = 64 * 1024;

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
  const parts: string[] = [];
  let size = 0;
  const flush = () => {
    if (parts.length > 0) io.stdout(parts.join(''));
    parts.length = 0;
    size = 0;
  };
  const put = (text: string) => {
    parts.push(text);
    size += text.length;
    if (size >= FLUSH_AT) flush();
  };
  put('[\n');
  for (const [i, item] of items.entries()) {
    const { [key]: _, ...rest } = item as Record<string, unknown>;
    const whole = `  ${indent(JSON.stringify({ ...rest, [key]: [] }, null, 2), '  ')}`;
    const empty = '[]\n  }';
    let started = false;
    const source = pages(item);
    // No await for an item without pages: 5,000 sessions need not wait for 5,000 microtasks.
    if (source)
      for await (const page of source) {
        if (page.length === 0) continue;
        const entries = page.map((e) => `      ${indent(JSON.stringify(e, null, 2), '      ')}`).join(',\n');
        put(started ? `,\n${entries}` : `${whole.slice(0, -empty.length)}[\n${entries}`);
        started = true;
        flush();
        await io.drained();
      }
    put(started ? '\n    ]\n  }' : whole);
    put(i < items.length - 1 ? ',\n' : '\n]\n');
  }
  flush();
}
