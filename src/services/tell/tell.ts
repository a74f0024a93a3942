import { userInfo } from 'node:os';
import { utcMinute } from '../../core/duration.js';
import { LanesError } from '../../core/errors.js';
import { hookSessionId } from '../../core/hook-event.js';
import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import { lanesHome } from '../../core/paths.js';
import { CONTEXT_EVENTS } from '../../core/context-events.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';
import type { HookContext } from '../hooks/context.js';
import { clearInbox, markInbox } from './inbox.js';

// `lanes tell SESSION MESSAGE` (issue 49, item 2): a person's word to an agent, journaled (`tell`)
// and delivered through the agent's own hooks, in the context channel lanes' warnings use, at its
// next hook call that carries context to its model (agents/context-events.ts); each delivery is
// journaled (`tell.delivered`), so a message shows as pending until then.

const MAX = 4000;

export interface Told {
  seq: number;
  at: number;
  session: string;
  from: string;
  message: string;
  /** When and through which hook it reached the agent's model; null: pending. */
  delivered: { at: number; via: string } | null;
}

export async function tell(ctx: LanesContext, s: SessionRecord, message: string): Promise<Told> {
  const text = message.trim();
  // Control characters (a carriage return submits a line, ^C interrupts) are never passed on.
  const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.exec(text);
  if (control)
    throw new LanesError(
      'E_USAGE',
      `the message holds a control character (U+${control[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()})`,
      {
        hint: 'send plain text: lines and tabs are kept, other control characters are refused',
      },
    );
  if (!text || text.length > MAX)
    throw new LanesError('E_USAGE', `the message is ${text ? `${text.length} characters (at most ${MAX})` : 'empty'}`, {
      hint: 'say it in one message of plain text: lanes tell SESSION "rebase on main, the tests of cart fail"',
    });
  if (s.endedAt !== null)
    throw new LanesError('E_SESSION_ENDED', `${describeSession(s)} has ended: no agent is there to tell`, {
      hint: `lanes new --resume ${s.id} goes on with its work (its task can carry the message)`,
    });
  if (s.owner.host !== ctx.host)
    throw new LanesError(
      'E_USAGE',
      `${describeSession(s)} runs on ${s.owner.host}: its hooks look for messages there`,
      {
        hint: `run lanes tell on ${s.owner.host}`,
      },
    );
  const from = ctx.sessionId ? `session ${ctx.sessionId}` : personName();
  await ctx.store.appendJournal([
    { kind: 'tell', subject: s.id, session: s.id, repo: s.repo, ticket: s.ticket, details: { message: text, from } },
  ]);
  markInbox(
    lanesHome(ctx.env),
    [s.id, s.conversation].filter((k): k is string => !!k),
  );
  // Its own entry (appendJournal gives no number): the newest of these words from this teller, not
  // merely the newest message (another told at the same moment).
  const recent = await ctx.store.readJournal({ session: s.id, kinds: ['tell'], order: 'desc', limit: 50 });
  const last = recent.find((e) => e.kind === 'tell' && e.details['message'] === text && e.details['from'] === from);
  return { seq: last?.seq ?? 0, at: last?.at ?? Date.now(), session: s.id, from, message: text, delivered: null };
}

function personName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'a person';
  }
}

/** Every message told to a session, oldest first, with its delivery. */
export async function toldTo(ctx: LanesContext, sessionId: string): Promise<Told[]> {
  const entries = await ctx.store.readJournal({ session: sessionId, kinds: ['tell'], limit: 5000 });
  const delivered = new Map<number, { at: number; via: string }>();
  for (const e of entries)
    if (e.kind === 'tell.delivered')
      delivered.set(Number(e.details['seq']), { at: e.at, via: String(e.details['via']) });
  return entries
    .filter((e) => e.kind === 'tell')
    .map((e) => ({
      ...{ seq: e.seq, at: e.at, session: e.subject, from: String(e.details['from'] ?? '') },
      ...{ message: String(e.details['message'] ?? ''), delivered: delivered.get(e.seq) ?? null },
    }));
}

/**
 * At a hook call whose answer reaches the model, the session's pending messages are added to the
 * answer's context and journaled as delivered. `marked`: the inbox keys found marked.
 */
export async function deliverTells(
  ctx: LanesContext,
  h: HookContext,
  event: HookEvent,
  decision: HookDecision,
  marked: string[],
): Promise<HookDecision> {
  if (decision.permission !== 'allow' || !CONTEXT_EVENTS[event.agent].includes(event.kind)) return decision;
  const s =
    (await h.findSession(hookSessionId(event))) ??
    (ctx.env['LANES_SESSION'] ? await ctx.store.getSession(ctx.env['LANES_SESSION']) : null);
  if (!s) return decision;
  const home = lanesHome(ctx.env);
  // Only this session's marks: another session's (LANES_SESSION inherited from another agent's shell) stays for it.
  const mine = marked.filter((k) => k === s.id || k === s.conversation);
  if (mine.length === 0) return decision;
  marked = mine;
  clearInbox(home, marked);
  try {
    const pending = (await toldTo(ctx, s.id)).filter((t) => t.delivered === null);
    if (pending.length === 0) return decision;
    const via = `${event.agent} ${event.kind}`;
    await ctx.store.appendJournal(
      pending.map((t) => ({
        ...{ kind: 'tell.delivered' as const, subject: s.id, session: s.id, repo: s.repo, ticket: s.ticket },
        details: { seq: t.seq, via },
      })),
    );
    const text = pending
      .map((t) => `A message for you from ${t.from} (lanes tell, ${utcMinute(t.at)}): ${t.message}`)
      .join('\n');
    return { ...decision, context: decision.context ? `${decision.context}\n\n${text}` : text };
  } catch {
    // Not delivered (the store failed): marked again, the next call tries again; the call itself goes on.
    markInbox(home, marked);
    return decision;
  }
}
