import type { SweepItem } from './sweep.js';

// What a sweep flags across its worktrees (incident 3b): two holders of work for one ticket, and
// older work for a ticket than another worktree's.

export interface SweepFlag {
  kind: 'collision' | 'stale';
  ticket: string;
  worktrees: string[];
  message: string;
}

/** Collisions (two holders of work for one ticket) and stale copies (older work for a ticket). */
export function flagTickets(items: SweepItem[]): SweepFlag[] {
  const flags: SweepFlag[] = [];
  const byTicket = new Map<string, SweepItem[]>();
  for (const it of items) {
    if (!it.ticket || (it.dirtyFiles === 0 && it.ahead === 0)) continue;
    byTicket.set(it.ticket, [...(byTicket.get(it.ticket) ?? []), it]);
  }
  for (const [ticket, group] of byTicket) {
    if (group.length < 2) continue;
    flags.push({
      kind: 'collision',
      ticket,
      worktrees: group.map((g) => g.worktree),
      message: `ticket ${ticket} has work in ${group.length} worktrees: ${group.map((g) => `${g.worktree} (${g.session ? `${g.session.id}, ${g.session.state}` : 'no session'})`).join(' and ')}; lanes picks none of them`,
    });
    const newest = group.reduce((a, b) => (b.lastWorkAt > a.lastWorkAt ? b : a));
    for (const g of group) {
      if (g === newest || g.lastWorkAt >= newest.lastWorkAt) continue;
      flags.push({
        kind: 'stale',
        ticket,
        worktrees: [g.worktree, newest.worktree],
        message: `${g.worktree} holds an older copy of ticket ${ticket} (last change ${new Date(g.lastWorkAt).toISOString()}) than ${newest.worktree} (${new Date(newest.lastWorkAt).toISOString()}): do not publish it over the newer work`,
      });
    }
  }
  return flags;
}
