import { budgetText, parseBudget } from '../../core/budget.js';
import type { Budget } from '../../core/budget.js';
import { LanesError } from '../../core/errors.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';
import { sessionNamed } from '../sessions/named.js';
import { StateService } from '../state/state.js';
import type { Json } from '../state/state.js';
import {
  BUDGET_KEY,
  continued,
  figuresOf,
  hardLimits,
  markOf,
  reached,
  sessionBudget,
  userBudget,
} from './budget-check.js';
import type { BudgetMark, SessionFigures } from './budget-check.js';
import { continuedScope } from './budget-group.js';

// A person's side of budgets (issue 50, item 2): what a session may spend and has spent (`lanes
// budget S`), letting a paused session go on (`lanes continue S`: each hard limit it reached is
// raised by its own size again) or raising a limit (`lanes budget raise S usd=20`). Each change is
// journaled (budget.continue) and clears the pause and the waiting the pause showed.

export interface BudgetView {
  session: string;
  /** The budget in force (null: none applies), hard limits as raised. */
  budget: Budget | null;
  spent: SessionFigures;
  paused: { at: number; what: string } | null;
  /** The first hard limit reached now, in words, or null. */
  reached: string | null;
}

async function viewOf(
  ctx: LanesContext,
  s: SessionRecord,
): Promise<{ view: BudgetView; mark: BudgetMark; base: Budget | null }> {
  const state = await new StateService(ctx).get(s.id);
  const mark = markOf(state);
  const base = sessionBudget({}, await userBudget(ctx.env), mark);
  const spent = figuresOf(ctx, s, state, Date.now());
  const budget = base ? { hard: hardLimits(base, mark), soft: base.soft } : null;
  return {
    view: {
      ...{ session: s.id, budget, spent },
      paused: mark.pausedAt ? { at: mark.pausedAt, what: mark.pausedFor ?? '' } : null,
      reached: budget ? (reached(spent, budget.hard)?.text ?? null) : null,
    },
    mark,
    base,
  };
}

async function change(
  ctx: LanesContext,
  s: SessionRecord,
  patch: Partial<BudgetMark>,
  by: string,
  limits: string,
): Promise<BudgetView> {
  await new StateService(ctx).mutate(s.id, (cur) => {
    if (cur !== undefined && (cur === null || typeof cur !== 'object' || Array.isArray(cur)))
      throw new LanesError('E_USAGE', `the state of ${s.id} is not a JSON object; its budget cannot be recorded`, {
        hint: `lanes state clear --session ${s.id}`,
      });
    const mark: BudgetMark = { ...markOf(cur), ...patch, pausedAt: null, pausedFor: null };
    return { ...(cur as Record<string, Json> | undefined), [BUDGET_KEY]: mark as unknown as Json };
  });
  await ctx.journal.record({
    ...{ kind: 'budget.continue', subject: s.id, session: s.id, ticket: s.ticket, repo: s.repo },
    details: { by, limits },
  });
  if (s.attention?.why?.startsWith('paused by its budget')) await ctx.store.setAttention(s.id, null, null);
  return (await viewOf(ctx, s)).view;
}

export const budgetings = (ctx: LanesContext) => ({
  /** A session's budget, what it spent, whether it is paused. */
  budgetOf: async (name: string): Promise<BudgetView> => (await viewOf(ctx, await sessionNamed(ctx, name))).view,
  /** Lets a paused session go on: each hard limit it reached is raised by its own size again. */
  continue: async (name: string): Promise<BudgetView> => {
    const s = await sessionNamed(ctx, name);
    const { view, mark, base } = await viewOf(ctx, s);
    const by = ctx.sessionId ?? `pid ${process.pid}`;
    // Paused by its ticket's or the night's budget: that scope's limits are raised for it.
    const scope = /^(ticket|night): /.exec(mark.pausedFor ?? '')?.[1] as 'ticket' | 'night' | undefined;
    const cfg = scope ? await userBudget(ctx.env) : undefined;
    const raised = scope && cfg ? continuedScope(cfg, mark, scope) : null;
    if (scope && raised) {
      const patch = scope === 'ticket' ? { raisedTicket: raised } : { raisedNight: raised };
      return change(ctx, s, patch, by, `${scope}: ${budgetText({ hard: raised, soft: {} })}`);
    }
    if (!base)
      throw new LanesError('E_NOT_FOUND', `${describeSession(s)} has no budget`, { hint: 'lanes budget shows it' });
    if (!view.paused && !view.reached)
      throw new LanesError('E_NOT_FOUND', `${describeSession(s)} is not paused: it has spent within its budget`, {
        hint: `lanes budget ${s.id} shows what it spent`,
      });
    const next = continued(base, mark, view.spent);
    return change(ctx, s, { raised: next }, by, budgetText({ hard: next, soft: {} }));
  },
  /** Raises (or sets) hard limits: `usd=20,tokens=5M`. */
  raise: async (name: string, spec: string): Promise<BudgetView> => {
    const s = await sessionNamed(ctx, name);
    const b = parseBudget(spec, 'lanes budget raise');
    if (Object.keys(b.soft).length)
      throw new LanesError('E_USAGE', 'lanes budget raise sets hard limits: no soft_ keys', {
        hint: 'e.g. usd=20,tokens=5M',
      });
    const { mark } = await viewOf(ctx, s);
    const next = { ...mark.raised, ...b.hard };
    return change(
      ctx,
      s,
      { raised: next },
      ctx.sessionId ?? `pid ${process.pid}`,
      budgetText({ hard: next, soft: {} }),
    );
  },
});
