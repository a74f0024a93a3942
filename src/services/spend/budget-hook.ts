import { hookSessionId } from '../../core/hook-event.js';
import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { Json } from '../state/state.js';
import type { LanesContext } from '../context.js';
import type { HookContext } from '../hooks/context.js';
import { BUDGET_KEY, figuresOf, hardLimits, markOf, reached, sessionBudget, userBudget } from './budget-check.js';
import { GROUP_EVERY_MS, groupReached, groupSpend, spentOf } from './budget-group.js';
import type { BudgetMark } from './budget-check.js';

// The budget at a tool call (issue 50, item 2): a session past a hard limit is paused — this call
// and the next are denied with words that tell the model to stop, summarize and wait — the
// person is told (the session shows waiting, notified; journal budget.pause), and `lanes
// continue` or `lanes budget raise` lets it go on; the watcher stops it after [budget] grace. A
// soft limit is told once (journal budget.soft, notified, a line in the model's context).

const TOOL_CALLS = new Set(['pre-edit', 'pre-shell']);

export function pauseWords(id: string, what: string): string {
  return [
    `lanes: session ${id} reached its budget: ${what}. It is paused.`,
    'Stop working now and call no more tools. Write a short summary for your person: what is done, what is left,',
    'what is not committed yet. Then wait.',
    `Your person continues you with \`lanes continue ${id}\` or raises the budget (\`lanes budget raise ${id} usd=…\`).`,
  ].join(' ');
}

async function setMark(h: HookContext, id: string, change: (m: BudgetMark) => BudgetMark): Promise<void> {
  await h.mutateState(id, (cur) => {
    if (cur !== undefined && (cur === null || typeof cur !== 'object' || Array.isArray(cur))) return undefined;
    return { ...(cur as Record<string, Json> | undefined), [BUDGET_KEY]: change(markOf(cur)) as unknown as Json };
  });
}

async function notifyBudget(ctx: LanesContext, s: Parameters<HookContext['attend']>[0], why: string): Promise<void> {
  const { notifyLater } = await import('../notify/dispatch.js');
  const { notifyEventOf } = await import('../notify/events.js');
  await notifyLater(ctx, [notifyEventOf('budget', s, why, Date.now())]).catch(() => undefined);
}

export async function budgetGate(
  ctx: LanesContext,
  h: HookContext,
  event: HookEvent,
  decision: HookDecision,
): Promise<HookDecision> {
  if (!TOOL_CALLS.has(event.kind) || decision.permission === 'deny') return decision;
  const s = await h.findSession(hookSessionId(event));
  if (!s || s.endedAt !== null) return decision;
  const row = (await h.readStates([s.id]))[0];
  const state = row ? (JSON.parse(row.value) as Json) : undefined;
  const mark = markOf(state);
  const cfg = await userBudget(ctx.env);
  const budget = sessionBudget(ctx.env, cfg, mark);
  const groups = cfg?.ticket !== undefined || cfg?.night !== undefined;
  if (!budget && !groups) return decision;
  // The run's budget as its agent has it, on the session: a person's lanes budget / continue see it.
  const run = ctx.env['LANES_BUDGET'];
  if (run && mark.run !== run) await setMark(h, s.id, (m) => ({ ...m, run }));
  const now = Date.now();
  const f = figuresOf(ctx, s, state, now, event.record ? { agent: event.agent, path: event.record } : undefined);
  let hard = budget ? reached(f, hardLimits(budget, mark)) : null;
  let group = mark.group;
  if (cfg && groups) {
    // Published and summed at most every half minute: a call costs the state read above, mostly.
    const publish = !mark.spent || now - mark.spent.at >= GROUP_EVERY_MS;
    const resum = !group || now - group.at >= GROUP_EVERY_MS;
    if (resum) group = await groupSpend(ctx, s, spentOf(f, now), now, { ticket: !!cfg.ticket, night: !!cfg.night });
    if (publish || resum)
      await setMark(h, s.id, (m) => ({
        ...m,
        ...(publish ? { spent: spentOf(f, now) } : {}),
        ...(resum ? { group } : {}),
      }));
    const g = !hard && group ? groupReached(cfg, mark, group, false) : null;
    if (g) hard = { key: g.key, text: g.text };
  }
  if (hard) {
    const words = pauseWords(s.id, hard.text);
    // Shown waiting at each denied call: an agent's prompt or a heartbeat in between clears it.
    if (mark.pausedAt) await h.attend(s, 'waiting', `paused by its budget: ${hard.text}; lanes continue ${s.id}`);
    else {
      await setMark(h, s.id, (m) => ({ ...m, pausedAt: Date.now(), pausedFor: hard.text }));
      await ctx.journal.record({
        ...{ kind: 'budget.pause', subject: s.id, session: s.id, ticket: s.ticket, repo: s.repo },
        details: {
          reached: hard.key,
          what: hard.text,
          tokens: f.usage,
          usd: f.usd,
          toolCalls: f.usage.toolCalls,
          wallMs: f.wallMs,
        },
      });
      await h.attend(s, 'waiting', `paused by its budget: ${hard.text}; lanes continue ${s.id}`);
      await notifyBudget(ctx, s, `paused: ${hard.text}`);
    }
    return {
      ...decision,
      permission: 'deny',
      reason: words,
      notice: `lanes: ${s.id} paused by its budget (${hard.text})`,
    };
  }
  const soft =
    (budget ? reached(f, budget.soft, mark.told ?? []) : null) ??
    (cfg && group ? groupReached(cfg, mark, group, true) : null);
  if (!soft) return decision;
  await setMark(h, s.id, (m) => ({ ...m, told: [...(m.told ?? []), soft.key] }));
  await ctx.journal.record({
    ...{ kind: 'budget.soft', subject: s.id, session: s.id, ticket: s.ticket, repo: s.repo },
    details: { reached: soft.key, what: soft.text, usd: f.usd },
  });
  await notifyBudget(ctx, s, `soft budget: ${soft.text}`);
  const note = `lanes: this session passed its soft budget (${soft.text}); your person is told. Keep to what the task needs.`;
  return { ...decision, context: decision.context ? `${decision.context}\n\n${note}` : note };
}
