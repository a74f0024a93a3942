import type { SessionView } from '../../index.js';

// What `lanes top` shows: every session of the window in one of five groups, in this order of
// precedence, each row what a person acts on (ticket, label, agent, age, last activity).

export const GROUPS = ['Needs you', 'Waiting for input', 'Working', 'Finished', 'Died'] as const;
export type Group = (typeof GROUPS)[number];

export interface TopRow {
  id: string;
  group: Group;
  ticket: string | null;
  label: string | null;
  agent: string | null;
  /** ms since it started. */
  age: number;
  /** ms since its last sign of life (a lanes call, what its agent signalled, its end). */
  idle: number;
  /** One line: why it is in its group (the agent's words, how it died). */
  why: string;
  /** `tmux NAME` when lanes started it in tmux. */
  terminal: string | null;
  live: boolean;
  depth: number;
  /** What its agent spent (`$0.42`, or tokens when no price is known), null when not measured. */
  spent: string | null;
}

/** The group of one session (null: not shown). */
export function groupOf(s: SessionView, teardownFailed: boolean): Group | null {
  if (s.died !== null || s.state === 'dead') return 'Died';
  if (teardownFailed) return 'Needs you';
  if (s.state === 'ended') return 'Finished';
  if (s.attention?.state === 'denied') return 'Needs you';
  if (s.attention?.state === 'waiting') return 'Waiting for input';
  if (s.attention?.state === 'finished') return 'Finished';
  return 'Working';
}

/**
 * `prOf`: a session's pull request in words (`PR open, checks failing (test)`), shown after its
 * why; `spentOf`: what it spent, as its column says it (spentText).
 */
export function topRows(
  sessions: SessionView[],
  now: number,
  prOf: Map<string, string> = new Map(),
  spentOf: Map<string, string> = new Map(),
): TopRow[] {
  const rows: TopRow[] = [];
  for (const s of sessions) {
    const group = groupOf(s, s.setupState === 'failed');
    if (!group) continue;
    const last = Math.max(s.lastSeenAt, s.attention?.at ?? 0, s.endedAt ?? 0);
    const why =
      group === 'Died'
        ? (s.died ?? s.why)
        : s.setupState === 'failed'
          ? 'its teardown failed: lanes teardown'
          : (s.attention?.why ?? (s.state === 'ended' ? (s.endReason ?? '') : (s.task?.split('\n')[0] ?? '')));
    const pr = prOf.get(s.id);
    rows.push({
      id: s.id,
      group,
      ticket: s.ticket,
      label: s.label,
      agent: s.agent,
      age: now - s.createdAt,
      idle: now - last,
      why: pr ? (why ? `${pr} · ${why}` : pr) : why,
      terminal: s.terminal,
      live: s.state === 'live',
      depth: s.parent !== null ? 1 : 0,
      spent: spentOf.get(s.id) ?? null,
    });
  }
  const rank = (g: Group) => GROUPS.indexOf(g);
  return rows.sort((a, b) => rank(a.group) - rank(b.group) || a.idle - b.idle);
}

/** A session's spend in at most 6 characters: `$0.42`, `$12.3`, `$1234`, or `48k tk` when no price is known. */
export function spentText(costUsd: number | null, tokens: number, unpriced: boolean): string {
  if (costUsd !== null && !unpriced)
    return costUsd < 10
      ? `$${costUsd.toFixed(2)}`
      : costUsd < 100
        ? `$${costUsd.toFixed(1)}`
        : `$${Math.round(costUsd)}`;
  const t =
    tokens >= 1e6 ? `${Math.round(tokens / 1e6)}M` : tokens >= 1e3 ? `${Math.round(tokens / 1e3)}k` : String(tokens);
  return `${t} tk`;
}
