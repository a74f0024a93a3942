import type { Io } from './command.js';

/** Every line after the first moved right by `pad` (JSON.stringify writes a newline only between tokens). */
const indent = (text: string, pad: string) => text.replace(/\n/g, `\n${pad}`);

/** Output gathered to this many characters before one write: a write per item cost 3 syscalls a session. */
const FLUSH_AT = 64 * 1024;

/**
 * Writes `items` as printJson (JSON.stringify(items, null, 2)) would, byte for byte, each item's
 * array `key` (its last field) filled a page at a time from `pages`: a listing of any length in
 * the memory of one page, waiting for stdout to drain between pages. `items` may come a page at a
 * time too (`lanes ls --json` reads its sessions so).
 */
export async function printJsonPaged<T extends object, E>(
  io: Pick<Io, 'stdout' | 'drained'>,
  items: readonly T[] | AsyncIterable<readonly T[]>,
  key: string,
  pages: (item: T) => AsyncIterable<E[]> | null,
): Promise<void> {
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
  let count = 0;
  const paged = async (whole: string, source: AsyncIterable<E[]>) => {
    const empty = '[]\n  }';
    let started = false;
    for await (const page of source) {
      if (page.length === 0) continue;
      const entries = page.map((e) => `      ${indent(JSON.stringify(e, null, 2), '      ')}`).join(',\n');
      put(started ? `,\n${entries}` : `${whole.slice(0, -empty.length)}[\n${entries}`);
      started = true;
      flush();
      await io.drained();
    }
    put(started ? '\n    ]\n  }' : whole);
  };
  // No await for an item without pages: 5,000 sessions need not wait for 5,000 microtasks.
  const one = (item: T): Promise<void> | undefined => {
    put(count++ === 0 ? '[\n' : ',\n');
    const { [key]: _, ...rest } = item as Record<string, unknown>;
    const whole = `  ${indent(JSON.stringify({ ...rest, [key]: [] }, null, 2), '  ')}`;
    const source = pages(item);
    if (source) return paged(whole, source);
    put(whole);
    return undefined;
  };
  const each = async (list: readonly T[]) => {
    for (const item of list) {
      const more = one(item);
      if (more) await more;
    }
  };
  if (Array.isArray(items)) await each(items as readonly T[]);
  else
    for await (const page of items as AsyncIterable<readonly T[]>) {
      await each(page);
      flush();
      await io.drained();
    }
  put(count === 0 ? '[]\n' : '\n]\n');
  flush();
}
