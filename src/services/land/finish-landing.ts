import { existsSync } from 'node:fs';
import { git } from '../../git/run.js';
import { isAncestor, revParse } from '../../git/worktree.js';
import { indexMatches } from '../../git/status.js';
import type { JournalInput } from '../../store/journal-types.js';
import type { LanesContext } from '../context.js';
import { acquireGate } from '../state/gate.js';
import { clearIntent, pendingIntents } from './landing-intent.js';
import type { LandingIntent } from './landing-intent.js';

export interface FinishedLanding {
  intent: LandingIntent;
  /**
   * completed: the target had moved, the checked-out worktree is brought along now (or already was)
   * and the land is journaled; not-published: killed before the target moved, nothing to undo;
   * stuck: lanes cannot finish it safely (the reason says why and what to do), the intent stays.
   */
  outcome: 'completed' | 'not-published' | 'stuck';
  detail: string;
}

/** The journal entry of a landing's step: its intent, its outcome, or that it never published. */
export function landingEntry(
  i: LandingIntent,
  kind: 'land' | 'land.intent' | 'land.abort',
  details: Record<string, unknown> = {},
): JournalInput {
  return {
    kind,
    subject: i.target,
    session: i.session,
    repo: i.repo,
    // The intent holds the claim (`ticket:SEAT-1`); the journal's ticket is the ticket, as every
    // other entry has it (`lanes log --ticket SEAT-1` finds the land).
    ticket: i.ticket.replace(/^ticket:/, ''),
    details: { branch: i.branch, from: i.from, to: i.to, mode: i.mode, token: i.token, ...details },
  };
}

/** A landing's outcome already journaled (the kill came after the entry, before the intent went). */
async function alreadyJournaled(ctx: LanesContext, i: LandingIntent): Promise<boolean> {
  // The intent's time is the local clock; the store's may differ a little (a team store).
  const found = await ctx.store.readJournal({
    kinds: ['land'],
    since: i.at - 600_000,
    session: i.session,
    limit: 1000,
  });
  return found.some((e) => e.kind === 'land' && e.subject === i.target && e.details['to'] === i.to);
}

/**
 * Finishes one landing left in flight, holding its landing gate (so never one still running: its
 * process holds the gate until it is done, or is proven dead). `by` names the call that finished it.
 */
export async function finishLanding(
  ctx: LanesContext,
  root: string,
  commonDir: string,
  i: LandingIntent,
  by: string,
  holdingGate = false,
): Promise<FinishedLanding | null> {
  const gate = holdingGate ? null : await acquireGate(ctx, i.gate, null, `the interrupted landing into ${i.target}`);
  try {
    // Finished meanwhile by whoever held the gate before us.
    if (!pendingIntents(commonDir).some((p) => p.targetRef === i.targetRef && p.to === i.to)) return null;
    const now = await revParse(root, i.targetRef);
    const published = now === i.to || (now !== null && now !== i.from && (await isAncestor(root, i.to, now)));
    if (!published) {
      await ctx.store.appendJournal([
        landingEntry(i, 'land.abort', { why: `interrupted before ${i.target} moved: nothing was published`, by }),
      ]);
      clearIntent(commonDir, i.targetRef);
      return {
        intent: i,
        outcome: 'not-published',
        detail: `nothing was published; ${i.target} is still at ${i.from.slice(0, 12)}`,
      };
    }
    let brought = 'no worktree had it checked out';
    if (i.worktree && existsSync(i.worktree)) {
      const head = await revParse(i.worktree, 'HEAD');
      if (head !== now) brought = `${i.worktree} is no longer on ${i.target}; left as it is`;
      else if (await indexMatches(i.worktree, 'HEAD')) brought = `${i.worktree} already held the landed files`;
      else if (await indexMatches(i.worktree, i.from)) {
        // Exactly the files from before the land, nothing staged on top: the step the kill cut off.
        try {
          await git(['read-tree', '-m', '-u', i.from, 'HEAD'], { cwd: i.worktree });
          brought = `brought ${i.worktree} to the landed files`;
        } catch (e) {
          return {
            intent: i,
            outcome: 'stuck',
            detail: `${i.target} was published, but ${i.worktree} cannot be brought along (${(e as Error).message.split('\n')[0]}): commit or move aside your own changes there (not the staged reversals of the landed files), then run lanes doctor --fix`,
          };
        }
      } else
        return {
          intent: i,
          outcome: 'stuck',
          detail: `${i.target} was published, but the index of ${i.worktree} matches neither the tree before the land nor after it: look at git status there; \`git read-tree -m -u ${i.from.slice(0, 12)} HEAD\` brings it along when only the landed files differ`,
        };
    }
    if (!(await alreadyJournaled(ctx, i)))
      await ctx.store.appendJournal([landingEntry(i, 'land', { finishedBy: by, note: brought })]);
    clearIntent(commonDir, i.targetRef);
    return { intent: i, outcome: 'completed', detail: `${i.target} was published at ${i.to.slice(0, 12)}; ${brought}` };
  } finally {
    await gate?.release({ kind: 'keep' });
  }
}

/** Every landing left in flight in this repository, finished (land, doctor --fix). */
export async function finishAll(
  ctx: LanesContext,
  root: string,
  commonDir: string,
  by: string,
  skip?: string,
): Promise<FinishedLanding[]> {
  const done: FinishedLanding[] = [];
  for (const i of pendingIntents(commonDir)) {
    if (i.targetRef === skip) continue;
    const r = await finishLanding(ctx, root, commonDir, i, by);
    if (r) done.push(r);
  }
  return done;
}

/** Whether the landing's gate is held by a live process: the land is still running, not interrupted. */
export async function landingInFlight(ctx: LanesContext, i: LandingIntent): Promise<boolean> {
  const g = await ctx.store.peekGate(i.gate);
  if (!g) return false;
  const now = g.owner.host === ctx.host ? 0 : await ctx.store.now();
  return ctx.judge([{ owner: g.owner, lastSeenMs: g.leaseUntil - ctx.gateLeaseMs }], now)[0]!.live;
}
