import { agentUserFile } from '../core/agent-logins.js';
import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { LanesError } from '../core/errors.js';
import type { AgentName } from '../core/hook-event.js';
import { lanesEvents, readConfig, withLanesHooks, withoutLanesHooks } from './config-file.js';
import { claudeCodeInstall } from './claude-code/install.js';
import { codexInstall } from './codex/install.js';
import { copilotInstall } from './copilot/install.js';
import { cursorInstall } from './cursor/install.js';
import { geminiInstall } from './gemini/install.js';
import { opencodeInstall } from './opencode/install.js';
import { pluginEvents, pluginInstall, pluginUninstall } from './install-plugin.js';
import type { InstallSpec } from './install-spec.js';
import { withoutWorktreeHooks } from './install-spec.js';
import { getRecord, setRecord } from './install-record.js';
import { makeDirsSync } from '../core/make-dirs.js';

export const INSTALL_SPECS: Record<AgentName, InstallSpec> = {
  'claude-code': claudeCodeInstall,
  codex: codexInstall,
  gemini: geminiInstall,
  cursor: cursorInstall,
  copilot: copilotInstall,
  opencode: opencodeInstall,
};

/** A change to one agent config file: `after` null deletes the file (nothing but lanes was in it). */
export interface ConfigChange {
  agent: AgentName;
  /** What lanes adds there: its hooks, its MCP server, Claude Code's status line. */
  kind: 'hooks' | 'mcp' | 'statusline';
  file: string;
  before: string | null;
  after: string | null;
  changed: boolean;
  notes: string[];
  /** install: what it creates (remembered for uninstall); uninstall: forget the record. */
  record: 'set' | 'clear' | null;
  created: { file: boolean; hooks: boolean; keptEmpty?: string[] };
  /** Where the record is kept (default: the file; another entry of the same file has its own key). */
  recordKey?: string;
  /** TOML: the separator install put before lanes' table. */
  separator?: string;
}

export function configFile(
  agent: AgentName,
  base: { projectRoot: string | null; home: string; user: boolean; env?: Record<string, string | undefined> },
): string {
  const spec = INSTALL_SPECS[agent];
  // The agent's login directory may be moved (a seat's CLAUDE_CONFIG_DIR, CODEX_HOME, ...): its user file moves with it.
  if (base.user) return agentUserFile(agent, spec.userFile, base.home, base.env ?? process.env);
  if (!base.projectRoot) {
    throw new LanesError('E_USAGE', 'not inside a git repository, so there is no project config to install into', {
      hint: 'run it in the repository, or pass --user for your user config',
    });
  }
  return join(base.projectRoot, spec.projectFile);
}

export function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LanesError('E_IO', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      hint: 'check its permissions',
    });
  }
}

export function planInstall(
  agent: AgentName,
  file: string,
  commandPrefix: string,
  options: { worktreeHooks?: boolean } = {},
): ConfigChange {
  const before = readText(file);
  const spec = options.worktreeHooks === false ? withoutWorktreeHooks(INSTALL_SPECS[agent]) : INSTALL_SPECS[agent];
  if (spec.shape === 'plugin') {
    const { after, notes } = pluginInstall(spec, file, before, commandPrefix);
    const created = { file: before === null, hooks: true };
    return { agent, file, before, after, kind: 'hooks', changed: after !== before, notes, record: null, created };
  }
  const after = withLanesHooks(file, before, spec, commandPrefix);
  const root = before === null ? {} : readConfig(file, before);
  // A second install (more events added) keeps what the first one recorded, and adds the event
  // lists it found empty (left empty again by uninstall).
  const keep = getRecord(file);
  const hooksBefore = root['hooks'] as Record<string, unknown> | undefined;
  const emptyNow = spec.entries
    .map((e) => e.event)
    .filter((e) => Array.isArray(hooksBefore?.[e]) && (hooksBefore[e] as unknown[]).length === 0);
  const keptEmpty = [...new Set([...(keep?.keptEmpty ?? []), ...emptyNow])];
  const created = {
    file: keep ? keep.createdFile : before === null,
    hooks: keep ? keep.createdHooks : before === null || root['hooks'] === undefined,
    ...(keptEmpty.length ? { keptEmpty } : {}),
  };
  const grew = keptEmpty.length > (keep?.keptEmpty?.length ?? 0);
  return {
    agent,
    file,
    before,
    after,
    kind: 'hooks',
    changed: after !== before,
    notes: INSTALL_SPECS[agent].notes,
    record: after !== before && (!keep || grew) ? 'set' : null,
    created,
  };
}

/** `before`: the file as an earlier change of the same run leaves it (default: as it is on disk). */
export function planUninstall(agent: AgentName, file: string, before = readText(file)): ConfigChange {
  const rec = getRecord(file);
  const created = rec
    ? { file: rec.createdFile, hooks: rec.createdHooks, ...(rec.keptEmpty ? { keptEmpty: rec.keptEmpty } : {}) }
    : { file: true, hooks: true };
  if (before === null)
    return {
      agent,
      kind: 'hooks',
      file,
      before,
      after: null,
      changed: false,
      notes: [],
      record: rec ? 'clear' : null,
      created,
    };
  const spec = INSTALL_SPECS[agent];
  const after =
    spec.shape === 'plugin'
      ? pluginUninstall(spec, before)
      : withoutLanesHooks(file, before, spec, rec ? created : null);
  const record = rec ? ('clear' as const) : null;
  return { agent, kind: 'hooks', file, before, after, changed: after !== before, notes: [], record, created };
}

export interface HookStatus {
  agent: AgentName;
  file: string;
  exists: boolean;
  /** null when the file is not valid JSON (the error says why). */
  events: string[] | null;
  missing: string[];
  error: string | null;
}

export function hookStatus(agent: AgentName, file: string): HookStatus {
  const spec = INSTALL_SPECS[agent];
  const required = withoutWorktreeHooks(spec).entries;
  const text = readText(file);
  if (text === null)
    return { agent, file, exists: false, events: [], missing: required.map((e) => e.event), error: null };
  try {
    const events = spec.shape === 'plugin' ? pluginEvents(spec, text) : lanesEvents(readConfig(file, text), spec);
    return {
      agent,
      file,
      exists: true,
      events,
      missing: required.map((e) => e.event).filter((e) => !events.includes(e)),
      error: null,
    };
  } catch (e) {
    return { agent, file, exists: true, events: null, missing: [], error: (e as Error).message };
  }
}

/** Writes the change atomically (temp file, fsync, rename), keeping the file's mode; deletes when after is null. */
export function applyChange(change: ConfigChange): void {
  const key = change.recordKey ?? change.file;
  if (change.record === 'set')
    setRecord(key, {
      createdFile: change.created.file,
      createdHooks: change.created.hooks,
      ...(change.created.keptEmpty ? { keptEmpty: change.created.keptEmpty } : {}),
      ...(change.separator !== undefined ? { separator: change.separator } : {}),
    });
  if (change.record === 'clear') setRecord(key, null);
  if (!change.changed) return;
  if (change.after === null) {
    unlinkSync(change.file);
    return;
  }
  // A config kept in a dotfiles repository is often a symlink: write the file it points to, and
  // keep the link.
  let file = change.file;
  try {
    file = realpathSync(change.file);
  } catch {
    // a new file
  }
  makeDirsSync(dirname(file));
  let mode = 0o644;
  try {
    mode = statSync(file).mode & 0o7777;
  } catch {
    // a new file
  }
  const tmp = `${file}.lanes-${process.pid}.tmp`;
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, change.after);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw new LanesError(
      'E_IO',
      `cannot write ${change.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { hint: 'free some disk space or check permissions; the config was left unchanged' },
    );
  }
  closeSync(fd);
  renameSync(tmp, file);
}
