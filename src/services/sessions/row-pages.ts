// `lanes ls --all` (and `ls --json`) over months of sessions: the rows a page at a time, so what a
// listing holds is its order (ids and parents) and one page of records, never every session.
import { nested } from '../../core/nesting.js';
import type { LanesContext } from '../context.js';
import { firstClaims, toRow, type SessionRow } from './session-rows.js';

/** A row of a listing and how deep under the session it works for it is shown (core/nesting.ts). */
export interface NestedRow {
  row: SessionRow;
  depth: number;
}

/**
 * The sessions not ended (every one with `all`) as rows() gives them, `size` at a time (default
 * 500): in creation order, or with `nest` each subagent's right after its parent. Each page is
 * read, judged and given its first `claimsShown` claims when it is asked for; a session gone from
 * the store in between is left out. Reading the pages twice gives the same order.
 */
export async function* rowPages(
  ctx: LanesContext,
  options: { all?: boolean; claimsShown: number; nest?: boolean; size?: number },
): AsyncGenerator<NestedRow[]> {
  const [outline, holders] = await Promise.all([
    ctx.store.sessionOutline({ includeEnded: options.all === true }),
    ctx.store.claimHolders(),
  ]);
  const order = options.nest ? nested(outline) : outline.map((row) => ({ row, depth: 0 }));
  const holding = new Set(holders);
  const size = Math.max(1, options.size ?? 500);
  for (let at = 0; at < order.length; at += size) {
    const page = order.slice(at, at + size);
    const records = new Map(
      (await ctx.store.getSessions(page.map((o) => o.row.id))).map((record) => [record.id, record]),
    );
    const found = [...records.values()];
    const states = await ctx.statesOf(found);
    const { first, counts } = await firstClaims(
      ctx,
      found.filter((x) => holding.has(x.id)).map((x) => x.id),
      options.claimsShown,
    );
    const rows: NestedRow[] = [];
    for (const { row, depth } of page) {
      const record = records.get(row.id);
      const state = record && states.get(row.id);
      if (record && state)
        rows.push({ row: toRow(record, state, first.get(row.id) ?? [], counts.get(row.id) ?? 0), depth });
    }
    if (rows.length > 0) yield rows;
  }
}
