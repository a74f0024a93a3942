import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyChange } from '../../agents/install.js';
import type { ConfigChange } from '../../agents/install.js';
import { planChanges } from '../../agents/install-plan.js';
import { getRecord } from '../../agents/install-record.js';
import type { AgentName } from '../../core/hook-event.js';
import type { HookState } from '../../index.js';
import type { FoundAgent } from './detect.js';
import { onPath } from './detect.js';
import { captureBefore, mergeRecord, missingDirs, readSetupRecord, writeSetupRecord } from './record.js';
import type { Target } from './record.js';
import { LANES_TOML_TEMPLATE } from './template.js';

// What `lanes setup` writes, and the writing. Each part is written by the installer its own
// command uses, so setup and the five commands it replaces cannot disagree: the agents' hooks and
// MCP entries by `lanes hooks install`'s planner (agents/install-plan.ts, merge-safe, every config
// validated before any is written), the git hooks by `lanes guard install` (the library's
// guard.install), and lanes.toml only where there is none.

export type ItemState = 'new' | 'change' | 'in place' | 'kept';

/** One file setup writes, and what of lanes goes into it (Gemini keeps hooks and MCP servers in one). */
export interface SetupItem {
  holds: ('hooks' | 'mcp' | 'guard' | 'lanes.toml')[];
  agent: AgentName | null;
  file: string;
  state: ItemState;
}

export interface SetupPlan {
  root: string;
  /** The repository's git common directory (real path): the undo record's key. */
  repository: string;
  user: boolean;
  found: FoundAgent[];
  agents: AgentName[];
  changes: ConfigChange[];
  /** The guard's pre-commit hook as it is now. */
  guard: HookState;
  toml: string;
  items: SetupItem[];
  notes: string[];
}

export interface PlanInput {
  root: string;
  repository: string;
  home: string;
  user: boolean;
  prefix: string;
  found: FoundAgent[];
  agents: AgentName[];
  guard: HookState;
}

/** The agents' config files, each once: new when the first change of it finds none. */
function configItems(changes: ConfigChange[]): SetupItem[] {
  const byFile = new Map<string, ConfigChange[]>();
  for (const c of changes) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
  return [...byFile.entries()].map(([file, cs]) => ({
    holds: cs.map((c) => (c.kind === 'mcp' ? ('mcp' as const) : ('hooks' as const))),
    agent: cs[0]!.agent,
    file,
    state: !cs.some((c) => c.changed) ? 'in place' : cs[0]!.before === null ? 'new' : 'change',
  }));
}

export function planSetup(i: PlanInput): SetupPlan {
  // As `lanes hooks install` plans them (its defaults: worktree hooks, no status line).
  const changes = planChanges(i.agents, {
    projectRoot: i.root,
    home: i.home,
    user: i.user,
    prefix: i.prefix,
    statusLine: false,
  });
  const toml = join(i.root, 'lanes.toml');
  const items: SetupItem[] = [
    ...configItems(changes),
    {
      holds: ['guard'],
      agent: null,
      file: i.guard.path,
      state: i.guard.installed ? 'in place' : existsSync(i.guard.path) ? 'change' : 'new',
    },
    { holds: ['lanes.toml'], agent: null, file: toml, state: existsSync(toml) ? 'kept' : 'new' },
  ];
  const notes = [...new Set(changes.filter((c) => c.changed).flatMap((c) => c.notes))];
  if (i.prefix === 'lanes' && changes.some((c) => c.changed) && !onPath('lanes', process.env))
    notes.push(
      '`lanes` is not on PATH here, so the agents cannot run these hooks (they would fail open). Install lanes globally (npm install -g, or npm link in its checkout), or run setup with --command "node /path/to/lanes/dist/cli.cjs".',
    );
  return { ...i, changes, toml, items, notes };
}

/** Whether setup has anything to write. */
export const pending = (p: SetupPlan): SetupItem[] => p.items.filter((i) => i.state === 'new' || i.state === 'change');

/** Every file writing the plan may create, change or move away (the guard keeps an earlier hook beside its own). */
function touched(p: SetupPlan): Target[] {
  const files = new Map<string, Target>();
  for (const c of p.changes.filter((c) => c.changed))
    files.set(c.file, { path: c.file, role: 'config', agent: c.agent, user: p.user, root: p.root });
  if (!p.guard.installed)
    for (const path of [p.guard.path, `${p.guard.path}.lanes-chained`]) files.set(path, { path, role: 'guard' });
  if (!existsSync(p.toml)) files.set(p.toml, { path: p.toml, role: 'lanes.toml' });
  return [...files.values()];
}

/**
 * Writes the plan, what each file was recorded first: a setup killed half way leaves a record
 * that names the files it may have changed (undo then finds them changed since and says so),
 * and the record is brought up to date once the writing ends, even when a write failed.
 */
export async function applySetup(p: SetupPlan, installGuard: () => Promise<unknown>): Promise<void> {
  const targets = touched(p);
  const files = captureBefore(targets);
  const dirs = [...new Set(targets.flatMap((t) => missingDirs(t.path)))];
  const keys = [...new Set(p.changes.filter((c) => c.changed).map((c) => c.recordKey ?? c.file))];
  const installRecords = Object.fromEntries(keys.map((k) => [k, getRecord(k)]));
  const earlier = readSetupRecord(process.env, p.repository);
  const record = () => writeSetupRecord(process.env, mergeRecord(earlier, p.repository, files, dirs, installRecords));
  record();
  try {
    for (const c of p.changes) applyChange(c);
    if (!p.guard.installed) await installGuard();
    // wx: a lanes.toml made since the plan is never overwritten.
    if (targets.some((t) => t.role === 'lanes.toml')) writeFileSync(p.toml, LANES_TOML_TEMPLATE, { flag: 'wx' });
  } finally {
    record();
  }
}
