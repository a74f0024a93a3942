// The flags on a session's row: what it shares with another live session, and what it waits for.
import type { FleetView, UiSession } from '../view-types.js';

/**
 * What each live session collides on: a worktree (and so an index) another live session of its host
 * uses, and a ticket another live session works on; each row that shares one says so.
 */
export function collisions(sessions: UiSession[], waits: FleetView['waits']): Map<string, string[]> {
  const live = sessions.filter((s) => s.state === 'live');
  const out = new Map<string, string[]>();
  const flag = (key: (s: UiSession) => string | null, say: (others: UiSession[]) => string) => {
    const m = new Map<string, UiSession[]>();
    for (const s of live) {
      const k = key(s);
      if (k) m.set(k, [...(m.get(k) ?? []), s]);
    }
    for (const group of m.values())
      if (group.length > 1)
        for (const s of group) out.set(s.id, [...(out.get(s.id) ?? []), say(group.filter((o) => o !== s))]);
  };
  const names = (os: UiSession[]) =>
    os.length > 3 ? `${os.length} live sessions` : os.map((o) => o.label ?? o.id).join(', ');
  flag(
    (s) => (s.worktree ? `${s.host}\u0000${s.worktree}` : null),
    (os) => `shares its worktree and index with ${names(os)}`,
  );
  flag(
    (s) => s.ticket,
    (os) => `same ticket as ${names(os)}`,
  );
  // A session waiting for a claim says so on its own row, naming the holders.
  const title = (id: string) => {
    const s = sessions.find((x) => x.id === id);
    return s ? (s.label ?? s.id) : id;
  };
  for (const w of waits) {
    const held = [...new Set(w.heldBy.map((h) => title(h.session)))];
    const say = `waits for ${w.resources.join(' ')}${held.length ? `, held by ${held.join(', ')}` : ''}`;
    out.set(w.session, [...(out.get(w.session) ?? []), say]);
  }
  return out;
}
