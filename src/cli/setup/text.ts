import { sep } from 'node:path';
import type { FoundAgent } from './detect.js';
import type { SetupItem, SetupPlan } from './plan.js';
import type { UndoItem } from './undo.js';

// What `lanes setup` says: what it found, what it will write (or found in place), and after
// writing, what to commit and what not to.

/** A path as a person reads it: relative under the repository, ~/ under the home. */
export function shown(file: string, root: string, home: string): string {
  if (file.startsWith(root + sep)) return file.slice(root.length + 1);
  if (home && file.startsWith(home + sep)) return `~${file.slice(home.length)}`;
  return file;
}

function foundLine(a: FoundAgent, home: string, selected: boolean): string {
  const where = [
    ...(a.program ? [`${a.program.split(sep).pop()} on PATH`] : []),
    ...a.configDirs.map((d) => shown(d, '\0', home)),
  ];
  const state = a.found ? where.join(', ') : 'not found';
  return `  ${a.agent.padEnd(12)} ${state}${selected ? (a.found ? '' : ' (set up as asked: --agent)') : a.found ? ' (left out: --agent)' : ''}`;
}

function describe(i: SetupItem): string {
  if (i.holds.includes('lanes.toml'))
    return i.state === 'kept' ? 'exists: left as it is' : 'a commented lanes.toml: it runs and sets nothing as it is';
  const what = i.holds.includes('guard')
    ? 'the guard: git pre-commit hook of this clone (lanes guard)'
    : `${i.agent} ${i.holds.map((h) => (h === 'mcp' ? 'MCP server (lanes mcp)' : 'hooks')).join(' and ')}`;
  if (i.state === 'in place') return `${what}: already in place`;
  if (i.state === 'new') return `${what} (new file)`;
  return i.holds.includes('guard')
    ? `${what} (your hook is kept beside it as pre-commit.lanes-chained and runs first)`
    : `${what} (added to the file; what is yours stays byte for byte)`;
}

const MARK = { new: '+', change: '~', 'in place': '=', kept: '=' } as const;

export function planText(p: SetupPlan, home: string, named: boolean): string {
  const lines = [`lanes setup in ${p.root}`, '', 'Agents on this machine:'];
  lines.push(...p.found.map((a) => foundLine(a, home, p.agents.includes(a.agent))));
  if (!named && p.agents.length === 0)
    lines.push('  no agent found: name one with --agent NAME to install its hooks anyway');
  const width = Math.max(...p.items.map((i) => shown(i.file, p.root, home).length));
  lines.push(
    '',
    `Files (${p.user ? "agents' hooks in your user config: --user" : "agents' hooks in the repository"}):`,
  );
  for (const i of p.items)
    lines.push(`  ${MARK[i.state]} ${shown(i.file, p.root, home).padEnd(width)}  ${describe(i)}`);
  for (const n of p.notes) lines.push(`note: ${n}`);
  return lines.join('\n') + '\n';
}

/** The repository's files to commit (setup's own, and those of its earlier runs git does not track yet), and what stays out. */
export function commitAdvice(p: SetupPlan, commit: string[], home: string): { commit: string[]; notCommit: string[] } {
  const notCommit = [
    `${shown(p.guard.path, p.root, home)}: git never commits its hooks; each clone runs lanes setup (or lanes guard install)`,
    ...(p.user ? ['the hooks under ~: they are yours, for every repository'] : []),
    ...(p.agents.includes('opencode')
      ? ['.opencode/node_modules and the package files OpenCode installs there itself']
      : []),
  ];
  return { commit: commit.map((f) => shown(f, p.root, home)), notCommit };
}

export function adviceText(a: { commit: string[]; notCommit: string[] }): string {
  const lines: string[] = [];
  if (a.commit.length)
    lines.push(
      'Commit (the agents then run the hooks in every clone, and in worktrees git makes):',
      `  git add ${a.commit.join(' ')} && git commit -m "lanes setup"`,
    );
  lines.push('Do not commit:', ...a.notCommit.map((n) => `  ${n}`));
  lines.push(
    "lanes.toml's [session] commands and [env] run only after `lanes allow` (each person, each change; `lanes allow --show` first).",
    'Undo: lanes setup --undo',
  );
  return lines.join('\n') + '\n';
}

const UNDO_SAYS: Record<UndoItem['action'], string> = {
  restore: 'put back as it was before setup',
  remove: 'removed (setup made it)',
  'as before': 'already as it was before setup',
  uninstall: "changed since setup: only lanes' own entries are taken out, your edits stay",
  leave: 'changed since setup: yours now, left as it is',
};

export function undoText(all: UndoItem[], root: string, home: string): string {
  // A file setup could have made and did not (the guard's place for an earlier hook): nothing to say.
  const items = all.filter((i) => i.action !== 'as before' || i.file.before !== null);
  const width = Math.max(0, ...items.map((i) => shown(i.file.path, root, home).length));
  return items.map((i) => `  ${shown(i.file.path, root, home).padEnd(width)}  ${UNDO_SAYS[i.action]}\n`).join('');
}
