import type { Step } from './step.js';

// Shell read as statements: a comment (a `#` that starts a word) is dropped, quotes are kept and
// may span lines, a backslash-newline joins lines, and `for …; do … done` / `while …` loops and
// `name() { … }` functions are followed, so each statement knows the loop and function it is in.
// `lines` lets a caller read a script embedded elsewhere (a Makefile recipe, a workflow's run:)
// with each line's number in its own file.

const LOOP = /(^|[|;&]\s*)(for|while|until)\b/;
const FUNC = /^\s*(function\s+[\w-]+|[\w-]+\s*\(\s*\))\s*\{?\s*$/;

export function readShell(
  file: string,
  text: string,
  o: { firstLine?: number; procedure?: boolean; scope?: number } = {},
): Step[] {
  const steps: Step[] = [];
  const loops: number[] = [];
  const funcs: number[] = [];
  const lines = text.split('\n');
  let stmt = '';
  let start = 0;
  let quote: string | null = null;
  const base = o.firstLine ?? 1;
  const emit = (t: string, at: number) => {
    const words = t.trim();
    if (!words) return;
    // `done` closes the innermost loop; a lone `}` a function.
    const closes = /^\s*done\b/.test(words);
    if (closes) loops.pop();
    if (/^\s*\}\s*$/.test(words)) funcs.pop();
    steps.push({
      file,
      line: at,
      lang: 'sh',
      text: words,
      strings: [],
      scope: funcs[funcs.length - 1] ?? o.scope ?? 0,
      procedure: o.procedure ?? false,
      loop: loops[loops.length - 1] ?? 0,
    });
    if (LOOP.test(words) && !/\bdone\b/.test(words)) loops.push(at);
    if (FUNC.test(words)) funcs.push(at);
  };
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (!stmt) start = base + n;
    let out = '';
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (quote) {
        if (c === '\\' && quote === '"' && i + 1 < line.length) {
          out += c + line[++i];
          continue;
        }
        if (c === quote) quote = null;
        out += c;
        continue;
      }
      if (c === "'" || c === '"') quote = c;
      if (c === '\\' && i + 1 < line.length) {
        out += c + line[++i];
        continue;
      }
      // A comment starts a word: `a#b` and `${#x}` are not comments.
      if (c === '#' && (i === 0 || /\s|;|&|\|/.test(line[i - 1]!))) break;
      out += c;
    }
    if (quote) {
      stmt += `${out}\n`;
      continue;
    }
    if (out.endsWith('\\')) {
      stmt += `${out.slice(0, -1)} `;
      continue;
    }
    stmt += out;
    // `do` and `then` on the loop's own line (for x in y; do) and one-line loops stay one statement.
    emit(stmt, start);
    stmt = '';
    // A here-document's body is data, not commands (a usage text, a config file written out):
    // skipped to its terminator (`<<-` allows it indented). A here-string (<<<) has no body.
    const here = /<<(-?)\s*(['"]?)([A-Za-z_][\w-]*)\2/.exec(out.replace(/<<</g, ''));
    if (here) {
      const end = here[3]!;
      while (n + 1 < lines.length && (here[1] ? lines[n + 1]!.trim() : lines[n + 1]) !== end) n++;
      n++;
    }
  }
  if (stmt) emit(stmt, start);
  return steps;
}

/** Whether a file's first line names a shell. */
export const shellShebang = (text: string): boolean => /^#!.*\b(ba|z|da|k)?sh\b/.test(text.slice(0, 120));
