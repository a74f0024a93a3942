import { readShell } from './read-shell.js';
import type { Step } from './step.js';

// The shell that build and CI files hold, each line at its number in its own file: a Makefile's
// recipe lines (a tab first; `@` and `-` prefixes dropped), package.json's `scripts`, and a GitHub
// workflow's `run:` steps (one line, or a `|`/`>` block to where its indentation ends).

export function readMakefile(file: string, text: string): Step[] {
  const steps: Step[] = [];
  let target = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^[\w./%$(){}-]+(\s+[\w./%$(){}-]+)*\s*::?(?!=)/.test(line)) target = i + 1;
    if (!line.startsWith('\t')) continue;
    // A recipe line ending in a backslash goes on: one shell command (a `for …; do \` loop).
    let cmd = line.slice(1).replace(/^[@+-]+/, '');
    const at = i + 1;
    while (cmd.endsWith('\\') && i + 1 < lines.length) cmd = `${cmd}\n${lines[++i]!.replace(/^\t/, '')}`;
    steps.push(...readShell(file, cmd, { firstLine: at, scope: target }));
  }
  return steps;
}

export function readPackageJson(file: string, text: string): Step[] {
  let scripts: Record<string, unknown>;
  try {
    scripts = ((JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {}) as Record<string, unknown>;
  } catch {
    return [];
  }
  const lines = text.split('\n');
  const steps: Step[] = [];
  for (const [name, value] of Object.entries(scripts)) {
    if (typeof value !== 'string') continue;
    const at = lines.findIndex((l) => l.includes(`${JSON.stringify(name)}:`) || l.includes(`"${name}" :`));
    steps.push(...readShell(file, value, { firstLine: at + 1, scope: at + 1 }));
  }
  return steps;
}

export function readWorkflow(file: string, text: string): Step[] {
  const lines = text.split('\n');
  const steps: Step[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)(-\s+)?run:\s*(.*)$/.exec(lines[i]!);
    if (!m) continue;
    const indent = m[1]!.length + (m[2]?.length ?? 0);
    const value = m[3]!.trim();
    if (value && !/^[|>][-+]?$/.test(value)) {
      steps.push(...readShell(file, value.replace(/^(['"])(.*)\1$/, '$2'), { firstLine: i + 1, scope: i + 1 }));
      continue;
    }
    let end = i + 1;
    while (end < lines.length && (!lines[end]!.trim() || /^(\s*)/.exec(lines[end]!)![1]!.length > indent)) end++;
    const body = lines.slice(i + 1, end);
    const cut = Math.min(...body.filter((l) => l.trim()).map((l) => /^(\s*)/.exec(l)![1]!.length));
    steps.push(
      ...readShell(file, body.map((l) => l.slice(Number.isFinite(cut) ? cut : 0)).join('\n'), {
        firstLine: i + 2,
        scope: i + 1,
      }),
    );
    i = end - 1;
  }
  return steps;
}
