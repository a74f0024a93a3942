// A subagent's session (store/types.ts SessionRecord.parent: a Claude Code subagent in a worktree of
// its own) is shown under the session it works for: in `lanes ls`, the report and the page.

/** The rows in display order, each subagent's right after its parent (in their own order); depth 1 under a parent shown. */
export function nested<T extends { id: string; parent: string | null }>(
  rows: readonly T[],
): { row: T; depth: number }[] {
  const ids = new Set(rows.map((r) => r.id));
  const children = new Map<string, T[]>();
  for (const r of rows)
    if (r.parent !== null && ids.has(r.parent)) children.set(r.parent, [...(children.get(r.parent) ?? []), r]);
  const out: { row: T; depth: number }[] = [];
  const seen = new Set<string>();
  const visit = (r: T, depth: number) => {
    if (seen.has(r.id)) return;
    seen.add(r.id);
    out.push({ row: r, depth });
    for (const c of children.get(r.id) ?? []) visit(c, depth + 1);
  };
  for (const r of rows) if (r.parent === null || !ids.has(r.parent)) visit(r, 0);
  // A cycle (never written by lanes, but a store is data): what is left, at the top.
  for (const r of rows) visit(r, 0);
  return out;
}
