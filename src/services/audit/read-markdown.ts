import { readCode } from './read-code.js';
import { readShell } from './read-shell.js';
import type { Step } from './step.js';

// An agent's instruction file or skill read as a procedure (issue 51, item 3): its fenced code
// blocks are commands in order (shell, or Python/JavaScript by the fence's language), a numbered or
// bulleted item's inline code is a command of that item, and every other line is prose (where a
// documented path is read). Each code block and each list item is a step of the procedure (`scope`),
// so `git add` in one and `git commit` in a later one are two steps.

const SHELL = new Set(['', 'sh', 'bash', 'shell', 'zsh', 'console', 'terminal', 'fish']);
const PY = new Set(['py', 'python', 'python3']);
const JS = new Set(['js', 'javascript', 'ts', 'typescript', 'mjs', 'node']);
const ITEM = /^\s*(\d+[.)]|[-*+])\s+/;

export function readMarkdown(file: string, text: string): Step[] {
  const steps: Step[] = [];
  const lines = text.split('\n');
  let stepNo = 0;
  let inItem = false;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    const fence = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(line);
    if (fence) {
      const close = lines.findIndex((l, i) => i > n && l.trim().startsWith(fence[1]!));
      const end = close < 0 ? lines.length : close;
      const body = lines.slice(n + 1, end).join('\n');
      const lang = fence[2]!.toLowerCase();
      stepNo++;
      const at = { firstLine: n + 2, procedure: true, scope: stepNo };
      if (SHELL.has(lang)) steps.push(...readShell(file, body.replace(/^\s*\$ /gm, ''), at));
      else if (PY.has(lang) || JS.has(lang))
        steps.push(
          ...readCode(file, body, PY.has(lang) ? 'py' : 'js').map((s) => ({
            ...s,
            line: s.line + n + 1,
            scope: stepNo,
            procedure: true,
          })),
        );
      n = end;
      continue;
    }
    if (ITEM.test(line)) {
      stepNo++;
      inItem = true;
    } else if (/^\S/.test(line)) inItem = false;
    // Inline code of a list item (or of its indented lines) is a command of its step; other inline
    // code and the text are prose.
    const codes = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    // A rule against a command (never run `git add -A`) is not a step that runs it.
    const commands =
      inItem && !/\b(never|don'?t|do not|must not|avoid|instead of)\b/i.test(line)
        ? codes.filter((c) => /^(git|lanes|python3?|node|npm|rm|cat|cp|mv|echo|jq)\b/.test(c))
        : [];
    for (const c of commands) steps.push(...readShell(file, c, { firstLine: n + 1, procedure: true, scope: stepNo }));
    if (line.trim())
      steps.push({
        file,
        line: n + 1,
        lang: 'prose',
        text: line.trim(),
        strings: codes,
        scope: stepNo,
        procedure: true,
        loop: 0,
      });
  }
  return steps;
}
