import { findNodeAtLocation } from 'jsonc-parser';
import { append, eolOf, readConfig, removeChild, render, tree, unitOf } from './config-file.js';

// One keyed entry lanes owns in an agent's JSON config, edited as text like the hooks
// (config-file.ts): `mcpServers.lanes` (its MCP server) or `statusLine` (Claude Code's status line).
// Added only when absent, removed only when it is lanes' own, so install then uninstall gives the
// original bytes back.

type Json = Record<string, unknown>;

export interface EntrySpec {
  /** ['statusLine'] or ['mcpServers', 'lanes']. */
  path: [string] | [string, string];
  value: Json;
  /** Whether an entry found at the path is lanes' (never touch another tool's). */
  isOurs(value: unknown): boolean;
}

export type EntryState = 'absent' | 'ours' | 'other';

export function entryState(file: string, text: string | null, spec: EntrySpec): EntryState {
  if (text === null) return 'absent';
  let v: unknown = readConfig(file, text);
  for (const key of spec.path) v = v && typeof v === 'object' ? (v as Json)[key] : undefined;
  return v === undefined ? 'absent' : spec.isOurs(v) ? 'ours' : 'other';
}

/** The config with the entry added (the same text when any entry is already at the path). */
export function withEntry(file: string, original: string | null, spec: EntrySpec): string {
  const text = original ?? '{}\n';
  if (entryState(file, text, spec) !== 'absent') return text;
  const unit = unitOf(text);
  const eol = eolOf(text);
  const t = tree(text);
  const [key, child] = spec.path;
  const parent = child === undefined ? undefined : findNodeAtLocation(t, [key]);
  if (child !== undefined && parent?.type === 'object')
    return append(text, parent, (i) => `${JSON.stringify(child)}: ${render(spec.value, unit, i, eol)}`);
  const value = child === undefined ? spec.value : { [child]: spec.value };
  return append(text, t, (i) => `${JSON.stringify(key)}: ${render(value, unit, i, eol)}`);
}

/**
 * The config without lanes' entry; its parent object goes too when install created it and it is
 * now empty. null: install created the file and nothing else is in it (the caller deletes it).
 */
export function withoutEntry(
  file: string,
  original: string,
  spec: EntrySpec,
  created: { file: boolean; parent: boolean } | null,
): string | null {
  if (entryState(file, original, spec) !== 'ours') return original;
  const t = tree(original);
  const [key, child] = spec.path;
  const rootIndex = (t.children ?? []).findIndex((p) => p.children?.[0]?.value === key);
  let text: string;
  const parent = child === undefined ? undefined : findNodeAtLocation(t, [key]);
  if (parent && child !== undefined) {
    const own = (parent.children ?? []).findIndex((p) => p.children?.[0]?.value === child);
    const alone = (parent.children?.length ?? 0) === 1;
    text =
      alone && created?.parent !== false ? removeChild(original, t, rootIndex) : removeChild(original, parent, own);
  } else text = removeChild(original, t, rootIndex);
  if (created?.file === false) return text;
  return Object.keys(readConfig(file, text)).length === 0 ? null : text;
}
