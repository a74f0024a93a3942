import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';

// Text for a terminal: the width every help page and table fits in, and wrapping at words.

/**
 * Printable ASCII is one column per character, coloured or not (picocolors writes SGR sequences
 * only); anything else (CJK, emoji, accents) is measured by string-width, which the binary loads
 * at its first such text (scripts/build.mjs).
 */
const PLAIN = /^[\x20-\x7e]*$/;
const SGR = /\x1b\[[0-9;]*m/g;
export const widthOf = (text: string): number => {
  if (PLAIN.test(text)) return text.length;
  const bare = text.replace(SGR, '');
  return PLAIN.test(bare) ? bare.length : stringWidth(text);
};

/** Narrower than this, nothing reads well: the width asked for is raised to it. */
export const MIN_WIDTH = 40;

/**
 * The terminal's width when `stream` (standard output) is one, else $COLUMNS, else 80 (a pipe, a
 * file, a CI log). `COLUMNS=200 lanes ls | less -S` shows the tables unshortened; --json always is.
 */
export function terminalWidth(
  env: Record<string, string | undefined> = process.env,
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
): number {
  return Math.max(MIN_WIDTH, recordWidth(stream, env) ?? 80);
}

/**
 * The width to wrap a message at (an error and its fix, a doctor finding): the terminal's when
 * `stream` is one, else $COLUMNS when set, else null: left whole. A message piped to a program or a
 * log stays one line, so `2>&1 | grep fix:` finds the whole fix; a table has no such reader and
 * fits 80 columns instead (terminalWidth).
 */
export function recordWidth(
  stream: { isTTY?: boolean; columns?: number },
  env: Record<string, string | undefined> = process.env,
): number | null {
  if (stream.isTTY && (stream.columns ?? 0) > 0) return Math.max(MIN_WIDTH, stream.columns!);
  return /^\d+$/.test(env['COLUMNS'] ?? '') ? Math.max(MIN_WIDTH, Number(env['COLUMNS'])) : null;
}

/**
 * Text written across several source lines as one paragraph: a line break is a space, unless the
 * next line is indented or a list item, or the line ends with a colon. A blank line stays a paragraph.
 */
export function reflow(text: string): string {
  return text.replace(/([^:\n])\n(?=[^\s\-*\u2022\n])/g, '$1 ');
}

/**
 * `text` wrapped at words to `width` columns, every line after the first indented by `indent`. An
 * indented paragraph (a list item, an example) keeps its indentation, its own lines hanging two
 * columns further (past a `- ` bullet), so a list stays a list at any width.
 */
export function wrap(text: string, width: number, indent = ''): string {
  const body = Math.max(10, width - widthOf(indent));
  return reflow(text)
    .split('\n')
    .map((paragraph) => {
      // Most lines need no wrapping, and wrap-ansi measures every word (~0.5 ms a line).
      if (widthOf(paragraph) <= body) return paragraph;
      // A bullet may be coloured (pc.dim('•')).
      const [lead = '', spaces = ''] =
        /^( *)(?:(?:\x1b\[[0-9;]*m)*[-*\u2022](?:\x1b\[[0-9;]*m)* )?/.exec(paragraph) ?? [];
      const hang = lead ? ' '.repeat(spaces.length + 2) : '';
      return (
        lead +
        wrapCell(paragraph.slice(lead.length), Math.max(10, body - hang.length))
          .split('\n')
          .map((l, i) => (i === 0 ? l : indent + hang + l))
          .join('\n')
      );
    })
    .join(`\n${indent}`);
}

/** `text` wrapped at words to exactly `width` columns (a table's cell: no minimum), a longer word broken across lines. */
export function wrapCell(text: string, width: number): string {
  const w = Math.max(1, width);
  return PLAIN.test(text) ? wrapPlain(text, w) : wrapAnsi(text, w, { hard: true, trim: true });
}

/**
 * Printable ASCII wrapped at spaces (a word longer than the line is cut), as wrap-ansi does with
 * `hard`: it measures each word with string-width, ~0.5 ms a line, which a report of a few
 * thousand lines would feel. Anything else (colour, CJK, emoji) goes to wrap-ansi.
 */
function wrapPlain(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  let gap = ''; // the spaces before the next word, kept inside a line, dropped at a break
  for (const token of text.trim().match(/ +|[^ ]+/g) ?? []) {
    if (token.startsWith(' ')) {
      gap = token;
      continue;
    }
    let word = token;
    if (line && word.length <= width && line.length + gap.length + word.length > width) {
      lines.push(line);
      line = '';
    }
    if (!line) gap = '';
    // A word longer than the line starts on the next one when that cuts it fewer times (wrap-ansi's rule).
    if (line && word.length > width) {
      const remaining = width - line.length - gap.length;
      if (Math.floor((word.length - 1) / width) < 1 + Math.floor((word.length - remaining - 1) / width)) {
        lines.push(line);
        line = '';
        gap = '';
      }
    }
    while (word.length > width) {
      // A word longer than the line: what fits of it after the line, then whole lines of it.
      const room = line ? width - line.length - gap.length : width;
      if (room <= 0) {
        lines.push(line);
        line = '';
        gap = '';
        continue;
      }
      lines.push(line + gap + word.slice(0, room));
      word = word.slice(room);
      line = '';
      gap = '';
    }
    line = line + gap + word;
    gap = '';
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/**
 * Two columns: `label` padded to `labelWidth`, then `text` wrapped beside it. A label too wide
 * for that (more than half the width) gets the text on the lines below it instead.
 */
export function hanging(label: string, text: string, labelWidth: number, width: number, lead = '  '): string {
  if (labelWidth > width / 2 || widthOf(label) > labelWidth) {
    const under = `${lead}    `;
    return `${lead}${label}\n${under}${wrap(text, width, under)}`;
  }
  const pad = ' '.repeat(labelWidth - widthOf(label) + 2);
  const indent = ' '.repeat(widthOf(lead) + labelWidth + 2);
  return `${lead}${label}${pad}${wrap(text, width, indent)}`;
}

/**
 * `text` cut to `width` columns with an ellipsis: at the end, in the middle, or (a path) at its
 * start, keeping as many whole trailing parts as fit: `…/shop.lanes/shop-1`.
 */
export function shorten(text: string, width: number, where: 'end' | 'middle' | 'path' = 'end'): string {
  if (widthOf(text) <= width) return text;
  // Colours do not survive a cut: the shortened cell is plain.
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  if (widthOf(plain) <= width) return plain;
  if (width <= 1) return '…';
  const chars = [...plain];
  const take = (from: string[], room: number): string[] => {
    const kept: string[] = [];
    let used = 0;
    for (const c of from) {
      const w = widthOf(c);
      if (used + w > room) break;
      kept.push(c);
      used += w;
    }
    return kept;
  };
  if (where === 'end') return take(chars, width - 1).join('') + '…';
  if (where === 'path') {
    const parts = plain.split('/');
    for (let k = 1; k < parts.length; k++) {
      const tail = `…/${parts.slice(k).join('/')}`;
      if (widthOf(tail) <= width) return tail;
    }
    // Not even the last part fits: as much of its end as does.
    return (
      '…' +
      take([...chars].reverse(), width - 1)
        .reverse()
        .join('')
    );
  }
  // A path's end says what it is: two thirds of the room go to the tail.
  const tail = take([...chars].reverse(), Math.ceil(((width - 1) * 2) / 3)).reverse();
  const head = take(chars, width - 1 - widthOf(tail.join('')));
  return head.join('') + '…' + tail.join('');
}

/** The end of a path a person knows it by, its last `parts` parts (`…/shop.lanes/shop-1`); the whole when that is all of it. */
export function pathTail(text: string, parts = 2): string {
  const all = text.replace(/\x1b\[[0-9;]*m/g, '').split('/');
  return all.length > parts + 1 ? `…/${all.slice(-parts).join('/')}` : text;
}
