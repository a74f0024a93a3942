import type { Step } from './step.js';

// Python and JavaScript/TypeScript read as statements (issue 51, item 3: parse rather than grep):
// a small lexer that knows the languages' comments and string literals (Python's triple quotes and
// prefixes, JavaScript's template literals), joins a statement's lines while a ( or [ is open, and
// follows blocks — Python's indentation, JavaScript's braces — so each statement knows the function
// it is in and the loop around it. What is inside a string is never read as code, and a comment is
// never read at all.

interface Block {
  kind: 'def' | 'loop' | 'other';
  line: number;
  /** Python: the header's indentation. */
  indent: number;
}

const PY_DEF = /^\s*(async\s+)?def\s|^\s*class\s/;
const PY_LOOP = /^\s*(async\s+)?(for|while)\b/;
const JS_CONTROL = /^\s*(\}\s*)?(if|else|for|while|do|switch|catch|try|finally|with)\b/;
const JS_DEF = /\bfunction\b|=>\s*$|^\s*(async\s+|static\s+|get\s+|set\s+)*[A-Za-z_$][\w$]*\s*\([^)]*\)\s*(:[^{]+)?$/;
const JS_LOOP = /^\s*(for|while|do)\b|\.(forEach|map)\s*\(/;
/** Where a `/` starts a regular expression, not a division: after an operator, an opening bracket or a keyword. */
const REGEX_BEFORE = /(^|[(,=:[!&|?{};+\-*%<>~^]|\b(return|typeof|case|do|else|in|of|void|yield|await))\s*$/;

export function readCode(file: string, text: string, lang: 'py' | 'js'): Step[] {
  const steps: Step[] = [];
  const blocks: Block[] = [];
  let stmt = '';
  let strings: string[] = [];
  let start = 0;
  let line = 1;
  let depth = 0;
  const scope = () => [...blocks].reverse().find((b) => b.kind === 'def')?.line ?? 0;
  const loop = () => [...blocks].reverse().find((b) => b.kind === 'loop')?.line ?? 0;
  const emit = () => {
    const t = stmt.trim();
    if (t) {
      if (lang === 'py') {
        const indent = /^ */.exec(stmt.replace(/^\n+/, ''))![0].length;
        while (blocks.length && blocks[blocks.length - 1]!.indent >= indent) blocks.pop();
      }
      steps.push({
        file,
        line: start,
        lang,
        text: t.replace(/\s*\n\s*/g, ' '),
        strings,
        scope: scope(),
        procedure: false,
        loop: loop(),
      });
      if (lang === 'py' && t.endsWith(':')) {
        const indent = /^ */.exec(stmt.replace(/^\n+/, ''))![0].length;
        const kind = PY_DEF.test(t) ? 'def' : PY_LOOP.test(t) ? 'loop' : 'other';
        // The block's own steps come after its header: its line names them.
        blocks.push({ kind, line: start, indent });
      }
    }
    stmt = '';
    strings = [];
  };
  const open = (header: string) => {
    const h = header.trim();
    const kind = JS_LOOP.test(h) ? 'loop' : !JS_CONTROL.test(h) && JS_DEF.test(h) ? 'def' : 'other';
    blocks.push({ kind, line: start, indent: 0 });
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (!stmt.trim() && c !== '\n') start = line;
    if (c === '\n') {
      line++;
      if (depth === 0 && !stmt.endsWith('\\')) emit();
      else stmt += '\n';
      continue;
    }
    // Comments: to the line's end (never the newline itself), or JavaScript's /* … */.
    if ((lang === 'py' && c === '#') || (lang === 'js' && c === '/' && text[i + 1] === '/')) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      continue;
    }
    if (lang === 'js' && c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const body = text.slice(i, end < 0 ? text.length : end + 2);
      line += body.split('\n').length - 1;
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (lang === 'js' && c === '/' && REGEX_BEFORE.test(stmt.slice(-12))) {
      // A regular expression literal: its quotes and brackets are not the code's.
      let j = i + 1;
      for (let cls = false; j < text.length && text[j] !== '\n'; j++) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') cls = true;
        else if (text[j] === ']') cls = false;
        else if (text[j] === '/' && !cls) break;
      }
      if (text[j] === '/') {
        stmt += text.slice(i, j + 1);
        i = j;
        continue;
      }
    }
    if (c === '"' || c === "'" || (lang === 'js' && c === '`')) {
      const triple = lang === 'py' && text.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      let j = i + quote.length;
      let value = '';
      for (; j < text.length && !text.startsWith(quote, j); j++) {
        if (text[j] === '\\' && j + 1 < text.length) {
          value += text[j + 1];
          j++;
        } else {
          if (text[j] === '\n') {
            // An unterminated string ends at its line: the newline is the statement's.
            if (!triple && c !== '`') {
              j--;
              break;
            }
            line++;
          }
          value += text[j];
        }
      }
      strings.push(value);
      stmt += `${quote}${value}${quote}`;
      i = j + quote.length - 1;
      continue;
    }
    if (c === '(' || c === '[') depth++;
    if ((c === ')' || c === ']') && depth > 0) depth--;
    if (lang === 'js' && depth === 0 && (c === '{' || c === '}' || c === ';')) {
      if (c === '{') {
        const header = stmt;
        stmt += c;
        emit();
        open(header);
      } else {
        emit();
        if (c === '}') blocks.pop();
      }
      continue;
    }
    stmt += c;
  }
  emit();
  return steps;
}
