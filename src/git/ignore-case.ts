import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Whether a repository lives on a case-insensitive file system, as git itself decided when it made
// the repository: `core.ignorecase = true` in its config (git probes the file system at `git init`
// and `git clone`, and sets it on default APFS, Windows and other folding file systems). Read from
// the config file as the rest of discovery reads .git (no git process on the hot path).

const known = new Map<string, boolean>();

/** core.ignorecase of the repository whose common dir is `commonDir` (false when unreadable). */
export function ignoresCase(commonDir: string): boolean {
  let v = known.get(commonDir);
  if (v === undefined) {
    v = parseIgnoreCase(readConfig(join(commonDir, 'config')));
    known.set(commonDir, v);
  }
  return v;
}

function readConfig(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The `ignorecase` key of the `[core]` section (git's booleans: true, yes, on, 1), the last one winning. */
export function parseIgnoreCase(text: string): boolean {
  // Most configs never name the key (git writes it only where it is true, or on a Mac): no
  // regular expression is compiled for them, in a read that sits in every pre-edit hook.
  if (!text.toLowerCase().includes('ignorecase')) return false;
  let section = '';
  let value = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/[;#].*$/, '').trim();
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]$/.exec(line);
    if (head) {
      section = head[1]!.toLowerCase();
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (section === 'core' && kv && kv[1]!.toLowerCase() === 'ignorecase') {
      const val = (kv[2] ?? 'true')
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
      value = ['true', 'yes', 'on', '1'].includes(val);
    }
  }
  return value;
}
