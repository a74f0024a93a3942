import { parse } from 'smol-toml';
import { LanesError } from '../core/errors.js';

// Codex keeps its MCP servers in config.toml: `[mcp_servers.lanes]` with command and args. lanes
// appends that table as text and removes exactly that text (with the separator it added before
// it), so install then uninstall gives the original bytes back.

export const TOML_HEADER = '[mcp_servers.lanes]';

function parsed(file: string, text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new LanesError(
      'E_CONFIG',
      `${file}: not valid TOML (${(e as Error).message.split('\n')[0]}); lanes left it unchanged`,
      {
        hint: `fix ${file} (or move it away) and run the command again`,
      },
    );
  }
}

export function tomlServer(file: string, text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const servers = parsed(file, text)['mcp_servers'];
  const lanes = servers && typeof servers === 'object' ? (servers as Record<string, unknown>)['lanes'] : undefined;
  return lanes && typeof lanes === 'object' ? (lanes as Record<string, unknown>) : null;
}

/** The separator put before the table: a blank line after the file's last line. */
export function separatorFor(text: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return text === '' ? '' : text.endsWith(eol) ? eol : eol + eol;
}

export function withTomlServer(file: string, original: string | null, command: string, args: string[]): string {
  const text = original ?? '';
  if (tomlServer(file, text) !== null) return text;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const block = `${TOML_HEADER}${eol}command = ${JSON.stringify(command)}${eol}args = ${JSON.stringify(args)}${eol}`;
  return text + separatorFor(text) + block;
}

/** Without lanes' table (only when it is lanes' own); `separator` as install recorded it. null: nothing else was in the file. */
export function withoutTomlServer(
  file: string,
  original: string,
  isOurs: (server: Record<string, unknown>) => boolean,
  separator: string | null,
): string | null {
  const server = tomlServer(file, original);
  if (!server || !isOurs(server)) return original;
  const start = original.indexOf(TOML_HEADER);
  if (start < 0) return original; // written another way (dotted keys, inline table): not lanes' text
  const next = /^\s*\[/m.exec(original.slice(start + TOML_HEADER.length));
  const end = next ? start + TOML_HEADER.length + next.index : original.length;
  let before = original.slice(0, start);
  const sep = separator ?? (original.includes('\r\n') ? '\r\n' : '\n');
  if (before.endsWith(sep)) before = before.slice(0, before.length - sep.length);
  const text = before + original.slice(end);
  return text.trim() === '' ? null : text;
}
