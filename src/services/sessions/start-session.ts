import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { mainWorktreeOf } from '../../git/main-worktree.js';
import { repositoryOf as repositoryOfWorktree } from '../trust/approvals.js';
import { formatResource } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import { repoOfScope } from '../../store/shared/journal-entries.js';
import type { ClaimRecord, Grant, NewSession, SessionRecord } from '../../store/types.js';
import type { LoadedConfig } from '../config.js';
import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import { describeHolder, describeSession } from '../describe.js';
import type { CreatedWorktree } from '../worktrees/worktrees.js';
import type { SessionService, StartOptions } from './sessions.js';
import type { EnvironmentOf } from './setup.js';
import type { EndOptions } from './end-session.js';

// A ticket is claimed before the work starts (the second incident: nobody had claimed the ticket,
// nothing flagged that two sessions worked on it). `start --ticket T` registers the session and
// claims ticket:T in one transaction: held by another live session, nothing is registered and the
// holder is named; `join` registers beside the holder without the claim, said in the journal and
// from then on shown as a shared ticket. A dead or ended holder's ticket is taken over, as any claim.

export interface StartedSession extends SessionRecord {
  /** The grant of ticket:T (null without a ticket, or joined). */
  ticketGrant: Grant | null;
  /** With `join`: who holds the ticket this session joined. */
  joined: { session: string; token: number } | null;
  /** Other live sessions of this host working in the same worktree (one index: say so). */
  sharedWith: SessionRecord[];
}

export interface StartWithWorktree extends StartOptions {
  /** Make the session its own worktree first (lanes start --worktree), from `base` (default HEAD). */
  newWorktree?: { base?: string | null };
  /**
   * It goes on with this dead or ended session's work in `worktree` (lanes new --resume): its setup
   * (slug and teardown due) is handed over, or setup runs anew where its teardown already ran.
   */
  resumeFrom?: string;
  /** Filled with the ms each phase took (lanes new --json's timings): ticket, worktree, trust, register. */
  timings?: Record<string, number>;
}

/**
 * Registers the session (see above), in a worktree of its own with `newWorktree`: made after the
 * ticket was found free, and removed again (with its branch) when the claim is refused after all.
 */
export async function startSession(
  ctx: LanesContext,
  sessions: SessionService,
  claims: ClaimService,
  options: StartWithWorktree,
): Promise<StartedSession & { worktreeMade: CreatedWorktree | null; config: LoadedConfig | null }> {
  const timings = options.timings ?? {};
  let t = performance.now();
  const lap = (phase: string) => {
    const now = performance.now();
    timings[phase] = (timings[phase] ?? 0) + (now - t);
    t = now;
  };
  if (!options.newWorktree) {
    // Going on in a predecessor's worktree runs its setup again where its teardown ran.
    const config = options.resumeFrom && options.worktree ? await allowedHere(ctx, options.worktree, null) : null;
    lap('trust');
    const started = await register(ctx, sessions, claims, options);
    lap('register');
    return { ...started, worktreeMade: null, config };
  }
  if (options.ticket && !options.join) {
    const { ref, holders } = await claims.check(`ticket:${options.ticket}`);
    const live = holders.filter((h) => h.state === 'live');
    // The store's refusal, said before a worktree is made for nothing.
    if (live.length > 0)
      throw await refusal(
        ctx,
        options,
        ref,
        repoOfScope(ref.scope),
        live.map((h) => ({ held: h.claim, holder: h.session })),
      );
  }
  lap('ticket');
  const { createSessionWorktree, discardSessionWorktree } = await import('../worktrees/worktrees.js');
  // While git checks the files out (most of a start's time, spent in git): the session's record
  // (its owner proven), the store opened and the trust gate's code loaded. Only reads: nothing
  // of the session exists before the checkout succeeded and its lanes.toml was found allowed.
  let prepared: { path: string; record: NewSession } | null = null;
  const made = await createSessionWorktree(ctx, {
    ticket: options.ticket ?? null,
    label: options.label ?? null,
    base: options.newWorktree.base ?? null,
    whileCheckingOut: async (path) => {
      const [record] = await Promise.all([
        sessions.record({ ...options, worktree: path }),
        ctx.store.now(),
        import('../config.js'),
        import('../trust/gate.js'),
      ]);
      prepared = { path, record };
    },
  });
  lap('worktree');
  let config: LoadedConfig;
  try {
    // Its lanes.toml (the --base tree's, the copy .worktreeinclude made) runs nothing unallowed:
    // refused, nothing stays (no session, no claim; the worktree and branch just made go again).
    config = await allowedHere(ctx, made.path, options.newWorktree.base ?? null);
  } catch (e) {
    await discardSessionWorktree(ctx, made).catch(() => undefined);
    throw e;
  }
  lap('trust');
  try {
    const ready = prepared as { path: string; record: NewSession } | null;
    const record = ready?.path === made.path ? ready.record : undefined;
    const started = await register(ctx, sessions, claims, { ...options, worktree: made.path }, record);
    lap('register');
    return { ...started, worktreeMade: made, config };
  } catch (e) {
    await discardSessionWorktree(ctx, made).catch(() => undefined);
    throw e;
  }
}

/**
 * startSession, then the session's setup: a session going on with another's work takes over its
 * setup, or sets up anew where its teardown ran. Set up with the config the trust gate read and
 * allowed (not read a second time: setUp checks that same text again before it runs).
 */
export async function startAndSetUp(
  ctx: LanesContext,
  sessions: SessionService,
  claims: ClaimService,
  o: StartWithWorktree,
  deps: {
    passSetup: (from: string, to: string) => Promise<boolean>;
    environmentOf: EnvironmentOf;
    end: (id: string, o: EndOptions) => Promise<unknown>;
  },
): Promise<StartedSession & { worktreeMade: CreatedWorktree | null }> {
  const { config, ...started } = await startSession(ctx, sessions, claims, o);
  const t = performance.now();
  const passed = o.resumeFrom ? await deps.passSetup(o.resumeFrom, started.id) : false;
  if (started.worktreeMade || (o.resumeFrom && !passed)) {
    const { setUp } = await import('./setup.js');
    const { loadConfig } = await import('../config.js');
    await setUp(ctx, started, config ?? (await loadConfig(ctx, started.worktree)), deps.environmentOf, (reason) =>
      deps.end(started.id, { reason, removeWorktree: started.worktreeMade !== null, asOwner: true }),
    );
  }
  if (o.timings) o.timings['setup'] = performance.now() - t;
  return started;
}

async function register(
  ctx: LanesContext,
  sessions: SessionService,
  claims: ClaimService,
  options: StartOptions,
  prepared?: NewSession,
): Promise<StartedSession> {
  const record = prepared ?? (await sessions.record(options));
  // Said after the session exists: a failure to read it must not undo a registered session.
  const sharers = async (s: SessionRecord) =>
    s.worktree === null
      ? []
      : ctx
          .liveSessions((x) => x.id !== s.id && x.worktree === s.worktree && x.owner.host === ctx.host)
          .catch(() => []);
  if (!options.ticket) {
    const s = await ctx.store.insertSession(record);
    return { ...s, ticketGrant: null, joined: null, sharedWith: await sharers(s) };
  }
  const [ticket] = await claims.parse([`ticket:${options.ticket}`]);
  if (!ticket) throw new LanesError('E_USAGE', 'name a ticket');
  const joined = async (holder: { sessionId: string; token: number }): Promise<StartedSession> => {
    const s = await ctx.store.insertSession(record);
    await ctx.journal.record({
      kind: 'session.join',
      subject: formatResource(ticket),
      session: s.id,
      repo: s.repo,
      ticket: s.ticket,
      details: { holder: holder.sessionId, token: holder.token },
    });
    const j = { session: holder.sessionId, token: holder.token };
    return { ...s, ticketGrant: null, joined: j, sharedWith: await sharers(s) };
  };
  if (options.join) {
    const held = (await claims.check(formatResource(ticket))).holders.find((h) => h.state === 'live');
    if (held) return joined(held.claim);
  }
  // A ticket nobody live holds is claimed, with --join too (there is no one to join).
  const r = await ctx.store.insertSessionClaiming(record, [ticket], ctx.judge);
  if (r.ok)
    return { ...r.session, ticketGrant: r.grants[0] ?? null, joined: null, sharedWith: await sharers(r.session) };
  // --join, and a holder came between the look and the claim: join it.
  const first = r.blockers[0];
  if (options.join && first) return joined(first.held);
  throw await refusal(ctx, options, ticket, record.repo, r.blockers, r.now);
}

/** E_CLAIM_HELD naming the ticket's holders, journaled (a refused start is a decision too). */
async function refusal(
  ctx: LanesContext,
  options: StartOptions,
  ticket: ResourceRef,
  repo: string | null,
  blockers: { held: ClaimRecord; holder: SessionRecord | null }[],
  at?: number,
): Promise<LanesError> {
  const now = at ?? (await ctx.store.now());
  const holders = blockers.map(
    (b) =>
      `${describeSession(b.holder, b.held.sessionId)}${b.holder ? `, ${describeHolder(b.holder.owner, b.held.acquiredAt, now)}` : ''}`,
  );
  const heldBy = blockers.map((b) => ({
    resource: formatResource(b.held),
    session: b.held.sessionId,
    token: b.held.token,
  }));
  await ctx.journal.record({
    kind: 'claim.refuse',
    subject: formatResource(ticket),
    session: null,
    repo,
    ticket: options.ticket ?? null,
    details: { start: true, label: options.label ?? null, agent: options.agent ?? null, heldBy },
  });
  return new LanesError(
    'E_CLAIM_HELD',
    `ticket ${options.ticket} is held by ${holders.join('; ')}: no session was started`,
    {
      hint: `work on another ticket, wait for it (\`lanes claim --wait ticket:${options.ticket}\` from a session of yours), or work beside the holder on purpose with \`lanes start --ticket ${options.ticket} --join\` (both are then flagged as sharing it)`,
      details: { blockers: heldBy },
    },
  );
}

/**
 * Refuses (E_UNTRUSTED) a session in `worktree` whose lanes.toml would run or set what the user has
 * not allowed. The fix names what the user can read: the main worktree's file when it is the same
 * content, else the revision the worktree was made from.
 */
async function allowedHere(ctx: LanesContext, worktree: string, base: string | null): Promise<LoadedConfig> {
  const { loadConfig } = await import('../config.js');
  const { blockedBy } = await import('../trust/gate.js');
  const config = await loadConfig(ctx, worktree);
  if (!blockedBy(ctx.env, config.repoFile, ALL_RUNS)) return config;
  const { requireAllowed } = await import('../trust/gate.js');
  const main = mainWorktreeOf(repositoryOfWorktree(worktree));
  const mainFile = main ? join(main, 'lanes.toml') : null;
  const same = !base && mainFile !== null && readIfAny(mainFile) === config.repoFile?.text;
  await requireAllowed(ctx, config, ALL_RUNS, "a session's start in a new worktree", {
    ...(same ? { file: mainFile! } : { rev: base ?? 'HEAD' }),
  });
  return config;
}

const ALL_RUNS = ['setup', 'teardown', 'env'] as const;

function readIfAny(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
