import { findNodeAtLocation, parse, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { Node, ParseError } from 'jsonc-parser';
import { LanesError } from '../core/errors.js';
import type { InstallSpec } from './install-spec.js';
import { lanesHandlerPattern } from './install-spec.js';

// Agent configs are edited as text, never re-serialized: lanes inserts its entries after the last
// element of a list (or the last key of an object) and removes exactly the text it inserted, so
// every byte it does not own stays as it was (other tools' hooks, unknown keys, comments, the
// file's own indentation) and install followed by uninstall gives back the original file.
// jsonc-parser locates the nodes; the edits are plain string splices.

type Json = Record<string, unknown>;

/** Parses a config; a file that is not valid JSON is an error naming the file and the line, never overwritten. */
export function readConfig(file: string, text: string): Json {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || value === null || typeof value !== 'object' || Array.isArray(value)) {
    const first = errors[0];
    const line = first ? text.slice(0, first.offset).split('\n').length : 1;
    const what = first ? printParseErrorCode(first.error) : 'the top level is not a JSON object';
    throw new LanesError('E_CONFIG', `${file}:${line}: not valid JSON (${what}); lanes left it unchanged`, {
      hint: `fix ${file} (or move it away) and run the command again`,
    });
  }
  const hooks = (value as Json)['hooks'];
  if (hooks !== undefined && (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks))) {
    throw new LanesError('E_CONFIG', `${file}: "hooks" is not an object; lanes left it unchanged`, {
      hint: `fix the "hooks" key of ${file}`,
    });
  }
  for (const [event, groups] of Object.entries(hooks ?? {})) {
    if (!Array.isArray(groups))
      throw new LanesError('E_CONFIG', `${file}: "hooks"."${event}" is not a list; lanes left it unchanged`, {
        hint: `fix the "hooks"."${event}" key of ${file}`,
      });
  }
  return value as Json;
}

// ---- text geometry -------------------------------------------------------------------------

export function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

export function unitOf(text: string): string {
  return /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

/** Whether the node starts its own line (only whitespace before it). */
function startsLine(text: string, node: Node): boolean {
  const start = text.lastIndexOf('\n', node.offset - 1) + 1;
  return text.slice(start, node.offset).trim() === '';
}

/** JSON for `value`, its continuation lines indented to sit at `indent`. */
export function render(value: unknown, unit: string, indent: string, eol: string): string {
  return JSON.stringify(value, null, unit)
    .split('\n')
    .join(eol + indent);
}

/** Where a new child goes in a container node, and at which indentation. */
function childIndent(text: string, container: Node, unit: string): string {
  const last = container.children?.[container.children.length - 1];
  if (last && startsLine(text, container.type === 'object' ? (last.children?.[0] ?? last) : last))
    return lineIndent(text, last.offset);
  return lineIndent(text, container.offset) + unit;
}

/** Appends an element to an array node, or a key to an object node. */
export function append(text: string, container: Node, piece: (indent: string) => string): string {
  const eol = eolOf(text);
  const unit = unitOf(text);
  const indent = childIndent(text, container, unit);
  const last = container.children?.[container.children.length - 1];
  if (last) {
    const at = last.offset + last.length;
    const sameLine = !startsLine(text, container.type === 'object' ? (last.children?.[0] ?? last) : last);
    return text.slice(0, at) + (sameLine ? ', ' : `,${eol}${indent}`) + piece(indent) + text.slice(at);
  }
  // Empty container: open it over lines.
  const inner = container.offset + 1;
  const close = container.offset + container.length - 1;
  return (
    text.slice(0, inner) +
    `${eol}${indent}${piece(indent)}${eol}${lineIndent(text, container.offset)}` +
    text.slice(close)
  );
}

/** Removes one child (array element or object property) with the separator that belongs to it. */
export function removeChild(text: string, container: Node, index: number): string {
  const kids = container.children ?? [];
  const node = kids[index] as Node;
  if (kids.length === 1) {
    // The container becomes empty: drop everything between its brackets.
    return text.slice(0, container.offset + 1) + text.slice(container.offset + container.length - 1);
  }
  if (index > 0) {
    const prev = kids[index - 1] as Node;
    return text.slice(0, prev.offset + prev.length) + text.slice(node.offset + node.length);
  }
  const next = kids[1] as Node;
  return text.slice(0, node.offset) + text.slice(next.offset);
}

// ---- lanes' entries -------------------------------------------------------------------------

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A handler's command line: `command`, or Copilot's `bash`. */
const commandOf = (h: unknown): string => {
  if (!h || typeof h !== 'object') return '';
  const v = (h as Json)['command'] ?? (h as Json)['bash'];
  return typeof v === 'string' ? v : '';
};

/** The command prefix lanes' handlers in this config run with (`<prefix> hook <agent> <event>`), or null. */
export function lanesPrefix(root: Json, spec: InstallSpec): string | null {
  const mine = lanesHandlerPattern(spec.agent);
  for (const groups of Object.values((root['hooks'] as Json | undefined) ?? {})) {
    const handlers =
      spec.shape === 'flat' ? list(groups) : list(groups).flatMap((g) => list((g as Json | null)?.['hooks']));
    for (const h of handlers) {
      const command = commandOf(h);
      const m = mine.test(command) ? / hook \S+ \S+\s*$/.exec(command) : null;
      if (m) return command.slice(0, m.index).trim() || null;
    }
  }
  return null;
}

/** The events under which this agent's config has a lanes handler. */
export function lanesEvents(root: Json, spec: InstallSpec): string[] {
  const mine = lanesHandlerPattern(spec.agent);
  const events: string[] = [];
  for (const [event, groups] of Object.entries((root['hooks'] as Json | undefined) ?? {})) {
    const handlers =
      spec.shape === 'flat' ? list(groups) : list(groups).flatMap((g) => list((g as Json | null)?.['hooks']));
    if (handlers.some((h) => mine.test(commandOf(h)))) events.push(event);
  }
  return events;
}

export function tree(text: string): Node {
  return parseTree(text, [], { allowTrailingComma: true, disallowComments: false }) as Node;
}

/** The config with lanes' hooks added (the same text when they are all there already). */
export function withLanesHooks(
  file: string,
  original: string | null,
  spec: InstallSpec,
  commandPrefix: string,
): string {
  let text = original ?? JSON.stringify(spec.newFile, null, 2) + '\n';
  const unit = unitOf(text);
  const eol = eolOf(text);
  for (const entry of spec.entries) {
    const root = readConfig(file, text);
    if (lanesEvents(root, spec).includes(entry.event)) continue;
    // A named handler (Gemini) gets one name per entry: Gemini disables hooks by name, and one
    // name shared by all would turn them all off at once.
    const named =
      typeof spec.handlerExtra['name'] === 'string' ? { name: `${spec.handlerExtra['name']}-${entry.arg}` } : {};
    const keys = spec.keys ?? { command: 'command', timeout: 'timeout' };
    const handler = {
      ...(spec.shape === 'nested' ? { ...spec.handlerExtra, ...named, type: 'command' } : spec.handlerExtra),
      [keys.command]: `${commandPrefix} hook ${spec.agent} ${entry.arg}`,
      [keys.timeout]: entry.timeout,
      ...entry.extra,
    };
    const value =
      spec.shape === 'nested'
        ? { ...(entry.matcher ? { matcher: entry.matcher } : {}), hooks: [handler] }
        : { ...handler, ...(entry.matcher ? { matcher: entry.matcher } : {}) };
    const t = tree(text);
    const hooks = findNodeAtLocation(t, ['hooks']);
    const events = hooks ? findNodeAtLocation(t, ['hooks', entry.event]) : undefined;
    if (!hooks) text = append(text, t, (i) => `"hooks": ${render({ [entry.event]: [value] }, unit, i, eol)}`);
    else if (!events)
      text = append(text, hooks, (i) => `${JSON.stringify(entry.event)}: ${render([value], unit, i, eol)}`);
    else text = append(text, events, (i) => render(value, unit, i, eol));
  }
  return text;
}

/**
 * The config without lanes' hooks: exactly lanes' handlers go, and a group, an event list or the
 * "hooks" object only when removing lanes' entry left it empty. null: the file held nothing else
 * (the caller deletes it).
 */
export function withoutLanesHooks(
  file: string,
  original: string,
  spec: InstallSpec,
  created: { file: boolean; hooks: boolean; keptEmpty?: string[] } | null = null,
): string | null {
  const keptEmpty = new Set(created?.keptEmpty ?? []);
  const mine = lanesHandlerPattern(spec.agent);
  let text = original;
  for (let guard = 0; guard < 1000; guard++) {
    readConfig(file, text);
    const t = tree(text);
    const hooks = findNodeAtLocation(t, ['hooks']);
    if (!hooks) break;
    let done = false;
    for (let pi = 0; pi < (hooks.children?.length ?? 0) && !done; pi++) {
      const prop = hooks.children?.[pi] as Node;
      const groups = prop.children?.[1];
      for (let gi = 0; gi < (groups?.children?.length ?? 0) && !done; gi++) {
        const group = groups?.children?.[gi] as Node;
        if (spec.shape === 'flat') {
          if (!mine.test(commandOf(nodeValue(text, group)))) continue;
          text = removeEmptied(text, t, hooks, pi, groups as Node, gi, created?.hooks !== false, keptEmpty);
          done = true;
          continue;
        }
        const handlers = findNodeAtLocation(group, ['hooks']);
        const hi = (handlers?.children ?? []).findIndex((h) => mine.test(commandOf(nodeValue(text, h))));
        if (hi < 0) continue;
        text =
          (handlers?.children?.length ?? 0) > 1
            ? removeChild(text, handlers as Node, hi)
            : removeEmptied(text, t, hooks, pi, groups as Node, gi, created?.hooks !== false, keptEmpty);
        done = true;
      }
    }
    if (!done) break;
  }
  if (original === text || created?.file === false) return text;
  const rest = Object.keys(readConfig(file, text)).filter((k) => !(k in spec.newFile));
  return rest.length === 0 ? null : text;
}

/** Removes group gi of event property pi; the event key when it was the last group; "hooks" when it was the last key and lanes created it. */
function removeEmptied(
  text: string,
  root: Node,
  hooks: Node,
  pi: number,
  groups: Node,
  gi: number,
  dropHooksKey: boolean,
  keptEmpty: Set<string>,
): string {
  const event = hooks.children?.[pi]?.children?.[0]?.value as string | undefined;
  if ((groups.children?.length ?? 0) > 1 || (event !== undefined && keptEmpty.has(event)))
    return removeChild(text, groups, gi);
  if ((hooks.children?.length ?? 0) > 1 || !dropHooksKey) return removeChild(text, hooks, pi);
  const hooksProp =
    root.children?.findIndex((c) => c.children?.[1] === hooks || c.children?.[0]?.value === 'hooks') ?? -1;
  return removeChild(text, root, hooksProp);
}

function nodeValue(text: string, node: Node): unknown {
  return parse(text.slice(node.offset, node.offset + node.length));
}
