import { LanesError } from '../../core/errors.js';
import { lineage } from '../../core/process-identity.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import type { JournalInput } from '../../store/journal-types.js';
import type { EndOptions } from './end-session.js';
import { describeHolder, describeSession } from '../describe.js';

// The one "may I end this session" rule of every door (issue 44, item 4): the CLI's end and stop,
// the library's sessions.end, the MCP server. A session that is not live (ended, its owner proven
// dead) may be ended by anyone: its work is saved first. A live one only by its owner or a process
// below it (the agent ending its own session, the wrapper of a lanes run, a shell its own), or with
// `force` (journaled as such). A live session of another host is refused while its lease runs
// unless forced, since its worktree is not here to be saved.

export interface EndAsk {
  /** End it though it is live and not the caller's (lanes end --force). */
  force?: boolean | undefined;
  /** The command asking, for the refusal's words: `lanes end`, `lanes stop`, the MCP tool. */
  by?: string | undefined;
}

export type EndVerdict =
  { ok: true; forced: string | null } | { ok: false; error: LanesError; owner: Record<string, unknown> };

/** Whether the owner of `s` is this process or one of its ancestors (host, boot, pid and start time). */
function ownedAbove(ctx: LanesContext, s: SessionRecord): boolean {
  if (s.owner.host !== ctx.host || s.owner.bootId !== ctx.bootId) return false;
  if (s.owner.pid === process.pid) return true;
  return lineage(process.pid, 24, false).some((f) => f.pid === s.owner.pid && f.startTime === s.owner.startTime);
}

export async function mayEnd(ctx: LanesContext, s: SessionRecord, ask: EndAsk = {}): Promise<EndVerdict> {
  if (s.endedAt !== null) return { ok: true, forced: null };
  const { state } = await ctx.stateOf(s);
  if (state !== 'live' || ownedAbove(ctx, s)) return { ok: true, forced: null };
  const now = await ctx.store.now();
  const remote = s.owner.host !== ctx.host;
  const where = s.terminal ? `, in ${s.terminal}` : '';
  const owner = `${describeSession(s)} is live: owned by ${describeHolder(s.owner, s.createdAt, now, s.command)}${where}`;
  const details = {
    session: s.id,
    label: s.label,
    agent: s.agent,
    ticket: s.ticket,
    pid: s.owner.pid,
    host: s.owner.host,
    terminal: s.terminal,
  };
  if (ask.force)
    return {
      ok: true,
      forced: `forced by ${ask.by ?? 'lanes end'} --force while live (owner pid ${s.owner.pid} on ${s.owner.host})${remote ? '; its worktree is on that host and was not saved from here' : ''}`,
    };
  const ways = [
    s.command !== null && !remote
      ? `\`lanes stop ${s.id}\` asks its agent to exit first, then saves its work and ends it`
      : null,
    remote ? `end it on ${s.owner.host}, where its work can be saved first` : null,
    `\`${ask.by ?? 'lanes end'} ${s.id} --force\` ends it under its owner${remote ? ' without saving its work (not visible here)' : ' (its work saved first)'}, journaled as forced`,
  ].filter((w): w is string => w !== null);
  return {
    ok: false,
    owner: details,
    error: new LanesError('E_NOT_YOURS', `${owner}; it is not this process's to end`, {
      hint: ways.join('; or '),
      details,
    }),
  };
}

/**
 * The end's options once the rule allowed it (the caller's own session, one not live, or forced:
 * the reason then says so); a refusal is journaled (session.refuse) and thrown.
 */
export async function endOptionsFor(
  ctx: LanesContext,
  target: SessionRecord,
  given: EndOptions | string,
  who: () => Promise<Pick<JournalInput, 'session' | 'repo' | 'ticket'>>,
): Promise<EndOptions> {
  const o = typeof given === 'string' ? { reason: given } : given;
  if (o.asOwner) return o;
  const may = await mayEnd(ctx, target, { force: o.forceLive, by: o.by });
  if (!may.ok) {
    await ctx.journal.record({ ...(await who()), kind: 'session.refuse', subject: target.id, details: may.owner });
    throw may.error;
  }
  return may.forced ? { ...o, reason: `${o.reason ?? 'ended by lanes end'} (${may.forced})` } : o;
}
