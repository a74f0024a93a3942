import { LanesError } from '../../core/errors.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { unknownSession } from '../context.js';

// Sessions by name (issue 44, item 5): the report, the page and `lanes top` lead with labels,
// tickets and tmux names, so every command that takes a session takes those too. A name is, in
// this order: a session id; an agent's own session id bound to a lanes run; then the label, the
// ticket or the tmux session name (`tmux NAME`, lanes new's `lanes-<slug>`) of the open sessions
// (a ticket several open sessions work on names the one live session among them); failing those,
// the most recent ended session of that name. Ambiguous or unknown: exit 2 (E_SESSION_NAME) with
// the candidates, never a guess.

/** The tmux session name of a session lanes started in tmux (terminal `tmux NAME`). */
export const tmuxNameOf = (s: Pick<SessionRecord, 'terminal'>): string | null =>
  s.terminal?.startsWith('tmux ') ? s.terminal.slice(5) : null;

const named = (s: SessionRecord, name: string) => s.label === name || s.ticket === name || tmuxNameOf(s) === name;

/** How a candidate is listed: its id and its names. */
function candidate(s: SessionRecord): string {
  const names = [s.label, s.ticket, tmuxNameOf(s)].filter((n): n is string => !!n);
  return `${s.id}${names.length ? ` (${[...new Set(names)].join(', ')})` : ''}${s.endedAt !== null ? ' [ended]' : ''}`;
}

export async function sessionNamed(ctx: LanesContext, name: string): Promise<SessionRecord> {
  if (!name)
    throw new LanesError('E_SESSION_NAME', 'no session named: the name is empty', {
      hint: 'list sessions with `lanes ls`',
    });
  const exact = await ctx.store.getSession(name);
  if (exact) return exact;
  if (name.includes(':')) {
    const bound = await ctx.store.sessionByConversation(name);
    if (bound) return bound;
  }
  const open = (await ctx.store.listSessions({ includeEnded: false })).filter((s) => named(s, name));
  if (open.length === 1) return open[0]!;
  if (open.length > 1) {
    const states = await ctx.statesOf(open);
    const live = open.filter((s) => states.get(s.id)?.state === 'live');
    if (live.length === 1) return live[0]!;
    throw new LanesError(
      'E_SESSION_NAME',
      `${JSON.stringify(name)} names ${open.length} open sessions: ${open.map(candidate).join('; ')}`,
      {
        hint: 'name one by its id',
        details: { name, candidates: open.map((s) => s.id) },
      },
    );
  }
  // Only this path (a name no open session has) reads the ended ones.
  const all = await ctx.store.listSessions({ includeEnded: true });
  const ended = all
    .filter((s) => s.endedAt !== null && named(s, name))
    .sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0));
  if (ended[0]) return ended[0];
  const near = await nearNames(all, name);
  if (/^s-[a-z0-9]+$/.test(name) || name.includes(':'))
    throw unknownSession(name, ctx.store.info.location, near.length ? `did you mean ${near.join('; ')}?` : undefined);
  throw new LanesError(
    'E_SESSION_NAME',
    `no session is named ${JSON.stringify(name)} (an id, a label, a ticket or a tmux name)`,
    {
      hint: near.length ? `did you mean ${near.join('; ')}?` : 'list sessions with `lanes ls --all`',
      details: { name },
    },
  );
}

/** The sessions whose id or a name is within two edits of `name` (or starts with it), open ones first, at most five. */
async function nearNames(sessions: SessionRecord[], name: string): Promise<string[]> {
  // Loaded on this error path only (as the CLI's "did you mean" for commands).
  const { distance } = await import('fastest-levenshtein');
  const lower = name.toLowerCase();
  const close = (n: string | null) => {
    if (!n) return false;
    const l = n.toLowerCase();
    return l.startsWith(lower) || lower.startsWith(l) || distance(l, lower) <= 2;
  };
  return sessions
    .filter((s) => close(s.id) || close(s.label) || close(s.ticket) || close(tmuxNameOf(s)))
    .sort((a, b) => Number(a.endedAt !== null) - Number(b.endedAt !== null) || b.createdAt - a.createdAt)
    .slice(0, 5)
    .map(candidate);
}
