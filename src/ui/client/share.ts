// A new picture keeps the objects of the sessions (and the snapshots) that did not change since the last one, so the
// rows drawn from them (sessions.ts Row, claims.ts ClaimRow) are skipped by Preact's memo instead of
// diffed again: a busy fleet changes a few of 1,000 sessions per picture, and redrawing every row
// of every panel was most of an update's time in the page (bench/ui.mjs --page-prof).
import { dequal } from 'dequal/lite';
import type { FleetView, UiSession } from '../view-types.js';

export function shareUnchanged(before: FleetView | null, next: FleetView): FleetView {
  if (!before) return next;
  const old = new Map(before.sessions.map((s) => [s.id, s]));
  let changed = before.sessions.length !== next.sessions.length;
  const sessions = next.sessions.map((s, i): UiSession => {
    const was = old.get(s.id);
    if (was && dequal(was, s)) {
      if (before.sessions[i] !== was) changed = true;
      return was;
    }
    changed = true;
    return s;
  });
  // Nothing changed in the sessions: the same list, so panels drawn from it alone are skipped too.
  const snapshots = dequal(before.snapshots, next.snapshots) ? before.snapshots : next.snapshots;
  return { ...next, sessions: changed ? sessions : before.sessions, snapshots };
}
