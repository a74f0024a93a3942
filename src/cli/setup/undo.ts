import { chmodSync, realpathSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { applyChange } from '../../agents/install.js';
import { planChanges } from '../../agents/install-plan.js';
import { setRecord } from '../../agents/install-record.js';
import { LanesError } from '../../core/errors.js';
import { makeDirsSync } from '../../core/make-dirs.js';
import type { FileRecord, SetupRecord } from './record.js';
import { readBytes, removeSetupRecord, sha256 } from './record.js';

// `lanes setup --undo`: every file setup changed goes back to its bytes (and mode) before setup, a
// file it made goes, and so do the directories it made once empty. A file changed since setup is
// the user's: by default nothing is undone and the files are named (all or nothing, as every
// installer of lanes plans before it writes). With --keep-edited the other files are restored and
// lanes' own entries are taken out of the changed ones by the uninstallers `lanes hooks uninstall`
// and `lanes guard uninstall` use, so the user's edits stay; a lanes.toml changed since is theirs
// and stays as it is.

export type UndoAction = 'restore' | 'remove' | 'as before' | 'uninstall' | 'leave';

export interface UndoItem {
  file: FileRecord;
  edited: boolean;
  action: UndoAction;
}

const hashOf = (b: Buffer | null) => (b === null ? null : sha256(b));

export function planUndo(record: SetupRecord, keepEdited: boolean): UndoItem[] {
  const items = record.files.map((f): UndoItem => {
    const now = hashOf(readBytes(f.path));
    if (now === hashOf(f.before === null ? null : Buffer.from(f.before, 'base64')))
      return { file: f, edited: false, action: 'as before' };
    if (now === f.after) return { file: f, edited: false, action: f.before === null ? 'remove' : 'restore' };
    return { file: f, edited: true, action: f.role === 'lanes.toml' ? 'leave' : 'uninstall' };
  });
  const edited = items.filter((i) => i.edited);
  if (edited.length && !keepEdited)
    throw new LanesError(
      'E_EDITED',
      `lanes setup --undo: ${edited.map((i) => i.file.path).join(', ')} changed since lanes setup wrote ${edited.length === 1 ? 'it' : 'them'}; undoing would lose that, so nothing was undone`,
      {
        hint: "put them back as setup left them, or run `lanes setup --undo --keep-edited`: it restores the other files and takes only lanes' own entries out of these (your edits stay; a changed lanes.toml stays as it is)",
        details: { edited: edited.map((i) => i.file.path) },
      },
    );
  // The guard's hook and the earlier hook it keeps beside it go back together: one edited, both
  // go through the guard's uninstaller, which puts the earlier hook back in its place.
  if (items.some((i) => i.edited && i.file.role === 'guard'))
    for (const i of items) if (i.file.role === 'guard' && i.action !== 'as before') i.action = 'uninstall';
  return items;
}

/** The bytes and mode before setup, written as the installers write (temp file, rename; a linked config's target). */
function putBack(f: FileRecord): void {
  if (f.before === null) {
    rmSync(f.path, { force: true });
    return;
  }
  let target = f.path;
  try {
    target = realpathSync(f.path);
  } catch {
    // gone since: written anew
  }
  makeDirsSync(dirname(target));
  const tmp = `${target}.lanes-${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(f.before, 'base64'), { mode: f.mode ?? 0o644 });
  chmodSync(tmp, f.mode ?? 0o644); // not narrowed by the umask
  renameSync(tmp, target);
}

/** Takes lanes' hooks and MCP entry of the file's agent out of an edited config, as `lanes hooks uninstall` does. */
function uninstallFrom(f: FileRecord, home: string): void {
  if (!f.agent) return;
  const o = { projectRoot: f.root ?? null, home, user: f.user ?? false, prefix: null, statusLine: false };
  const changes = planChanges([f.agent], o);
  for (const c of changes) if (c.file === f.path) applyChange(c);
}

export async function applyUndo(
  record: SetupRecord,
  items: UndoItem[],
  o: { home: string; uninstallGuard: () => Promise<unknown> },
): Promise<void> {
  const uninstalled = new Set<string>();
  for (const i of items) {
    if (i.action === 'restore' || i.action === 'remove') putBack(i.file);
    else if (i.action === 'uninstall' && i.file.role === 'config') uninstallFrom(i.file, o.home);
    if (i.action === 'uninstall') uninstalled.add(i.file.path);
  }
  if (items.some((i) => i.action === 'uninstall' && i.file.role === 'guard')) await o.uninstallGuard();
  // The installer's records as they were, but where its uninstaller just settled them itself.
  for (const [key, rec] of Object.entries(record.installRecords))
    if (!uninstalled.has(key.replace(/#mcp$/, ''))) setRecord(key, rec);
  // Deepest first; a directory holding anything (an agent's own files, the user's) stays.
  for (const dir of [...record.dirs].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(dir);
    } catch {
      // not empty, or gone: left as it is
    }
  }
  removeSetupRecord(process.env, record.repository);
}
