// The apply_patch envelope (Codex's edits; OpenCode's and Copilot CLI's apply_patch tool for GPT
// models use the same text). It names every file it touches:
//   *** Add File: PATH / *** Update File: PATH (optionally followed by *** Move to: NEW) /
//   *** Delete File: PATH
// Paths are relative to the session's cwd and may contain spaces and any Unicode; only the line
// ending is trimmed.

export interface PatchTarget {
  path: string;
  op: 'add' | 'update' | 'delete' | 'move-from' | 'move-to';
}

const HEADER = /^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\r?$/;

const OPS: Record<string, PatchTarget['op']> = {
  'Add File': 'add',
  'Update File': 'update',
  'Delete File': 'delete',
  'Move to': 'move-to',
};

export function patchTargets(patch: string): PatchTarget[] {
  const out: PatchTarget[] = [];
  for (const line of patch.split('\n')) {
    const m = HEADER.exec(line);
    if (!m?.[1] || !m[2]) continue;
    const op = OPS[m[1]] ?? 'update';
    // An Update followed by Move to: the old path goes away, so it is written too.
    if (op === 'move-to') {
      const last = out[out.length - 1];
      if (last?.op === 'update') last.op = 'move-from';
    }
    out.push({ path: m[2], op });
  }
  return out;
}
