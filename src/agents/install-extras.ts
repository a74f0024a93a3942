import { agentUserFile } from '../core/agent-logins.js';
import { join } from 'node:path';
import type { AgentName } from '../core/hook-event.js';
import { readConfig } from './config-file.js';
import type { ConfigChange } from './install.js';
import { INSTALL_SPECS, readText } from './install.js';
import { getRecord } from './install-record.js';
import type { EntrySpec } from './json-entry.js';
import { entryState, withEntry, withoutEntry } from './json-entry.js';
import { separatorFor, tomlServer, withTomlServer, withoutTomlServer } from './toml-entry.js';

// What `lanes hooks install` adds besides the hooks: the `lanes mcp` server in the agent's MCP
// config, and (claude-code --statusline) Claude Code's status line. Same rules as the hooks: added
// only where nothing is, removed only when lanes' own, the original bytes back after uninstall.

/** `lanes` or `node /path/cli.cjs`: the command and the arguments before lanes' own. */
function split(prefix: string): [string, string[]] {
  const [command = 'lanes', ...args] = prefix.trim().split(/\s+/);
  return [command, args];
}

const runsLanes = (value: unknown, sub: string): boolean => {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  // OpenCode keeps the whole command line in one array.
  const line = [v['command'], ...(Array.isArray(v['args']) ? v['args'] : [])].flat().map(String).join(' ');
  return new RegExp(`(^|[\\s/"'])(lanes|cli\\.cjs)["']?\\s+(.*\\s)?${sub}(\\s|$)`).test(line);
};

export function mcpFile(
  agent: AgentName,
  base: { projectRoot: string | null; home: string; user: boolean; env?: Record<string, string | undefined> },
): string {
  const spec = INSTALL_SPECS[agent].mcp;
  return base.user || !base.projectRoot
    ? agentUserFile(agent, spec.userFile, base.home, base.env ?? process.env)
    : join(base.projectRoot, spec.projectFile);
}

function mcpEntry(agent: AgentName, prefix: string): EntrySpec {
  const [command, args] = split(prefix);
  const spec = INSTALL_SPECS[agent].mcp;
  const argv = [...args, 'mcp', '--agent', agent];
  return {
    path: [spec.key ?? 'mcpServers', 'lanes'],
    value:
      spec.key === 'mcp'
        ? { type: 'local', command: [command, ...argv], enabled: true }
        : { ...spec.serverExtra, command, args: argv },
    isOurs: (v) => runsLanes(v, 'mcp'),
  };
}

/** Registers (or, prefix null, removes) `lanes mcp` in the agent's MCP config; `before` as earlier changes of the run leave it. */
export function planMcp(agent: AgentName, file: string, prefix: string | null, before: string | null): ConfigChange {
  const spec = INSTALL_SPECS[agent].mcp;
  const recordKey = `${file}#mcp`;
  const rec = getRecord(recordKey);
  const base = { agent, kind: 'mcp' as const, file, before, recordKey, notes: [] as string[] };
  if (spec.format === 'toml') {
    if (prefix !== null) {
      const [command, args] = split(prefix);
      const after = withTomlServer(file, before, command, [...args, 'mcp', '--agent', agent]);
      const changed = after !== before;
      const other = !changed && !runsLanes(tomlServer(file, before), 'mcp');
      return {
        ...base,
        after,
        changed,
        notes: other ? [`${file} already has an MCP server named lanes that is not lanes mcp; left as it is`] : [],
        record: changed ? 'set' : null,
        created: { file: before === null, hooks: true },
        separator: separatorFor(before ?? ''),
      };
    }
    const after =
      before === null ? null : withoutTomlServer(file, before, (s) => runsLanes(s, 'mcp'), rec?.separator ?? null);
    const created = { file: rec?.createdFile ?? true, hooks: true };
    const kept = after === null && !created.file ? '' : after;
    return { ...base, after: kept, changed: kept !== before, record: rec ? 'clear' : null, created };
  }
  const entry = mcpEntry(agent, prefix ?? 'lanes');
  if (prefix !== null) {
    const state = entryState(file, before, entry);
    const after = withEntry(file, before, entry);
    const parentMissing = before === null || readConfig(file, before)[spec.key ?? 'mcpServers'] === undefined;
    return {
      ...base,
      after,
      changed: after !== before,
      notes:
        state === 'other'
          ? [`${file} already has an MCP server named lanes that is not lanes mcp; left as it is`]
          : spec.notes,
      record: after !== before && !rec ? 'set' : null,
      created: { file: before === null, hooks: parentMissing },
    };
  }
  const created = rec ? { file: rec.createdFile, parent: rec.createdHooks } : null;
  const after = before === null ? null : withoutEntry(file, before, entry, created);
  return {
    ...base,
    after,
    changed: after !== before,
    record: rec ? 'clear' : null,
    created: { file: created?.file ?? true, hooks: created?.parent ?? true },
  };
}

const STATUS_LINE = (prefix: string): EntrySpec => ({
  path: ['statusLine'],
  value: { type: 'command', command: `${prefix} statusline` },
  isOurs: (v) => runsLanes(v, 'statusline'),
});

/** Claude Code's statusLine set to `lanes statusline` only when none is configured (else a note on combining). */
export function planStatusLine(file: string, prefix: string | null, before: string | null): ConfigChange {
  const recordKey = `${file}#statusLine`;
  const rec = getRecord(recordKey);
  const entry = STATUS_LINE(prefix ?? 'lanes');
  const base = { agent: 'claude-code' as const, kind: 'statusline' as const, file, before, recordKey };
  if (prefix !== null) {
    const after = withEntry(file, before, entry);
    const other = entryState(file, before, entry) === 'other';
    const current = other
      ? JSON.stringify((readConfig(file, before ?? '{}')['statusLine'] as { command?: string })?.command ?? '')
      : '';
    return {
      ...base,
      after,
      changed: after !== before,
      notes: other
        ? [
            `a status line is configured already (${current}); lanes left it. To show both, make the statusLine command a script that reads stdin once and gives it to each: input=$(cat); printf '%s' "$input" | YOUR_COMMAND; printf '%s' "$input" | ${prefix} statusline`,
          ]
        : [],
      record: after !== before && !rec ? 'set' : null,
      created: { file: before === null, hooks: true },
    };
  }
  const created = rec ? { file: rec.createdFile, parent: true } : null;
  const after = before === null ? null : withoutEntry(file, before, entry, created);
  return {
    ...base,
    after,
    changed: after !== before,
    notes: [],
    record: rec ? 'clear' : null,
    created: { file: true, hooks: true },
  };
}

/** Whether `lanes mcp` is registered for this agent in the project's MCP config or the user's. */
export function lanesMcpConfigured(agent: AgentName, projectRoot: string | null, home: string): boolean {
  const spec = INSTALL_SPECS[agent].mcp;
  const files = [
    ...(projectRoot ? [mcpFile(agent, { projectRoot, home, user: false })] : []),
    mcpFile(agent, { projectRoot, home, user: true }),
  ];
  return files.some((file) => {
    const text = readText(file);
    if (text === null) return false;
    try {
      if (spec.format === 'toml') return runsLanes(tomlServer(file, text), 'mcp');
      const servers = readConfig(file, text)[spec.key ?? 'mcpServers'];
      return runsLanes((servers as Record<string, unknown> | undefined)?.['lanes'], 'mcp');
    } catch {
      return false;
    }
  });
}
