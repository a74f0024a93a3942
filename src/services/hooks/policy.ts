import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ALLOW, capText, hookSessionId } from '../../core/hook-event.js';
import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import { isLanesError } from '../../core/errors.js';
import type { ProcessFacts } from '../../core/platform/types.js';
import { agentPid, callerPid, identityOf, lineage } from '../../core/process-identity.js';
import { locateInRepo } from '../../git/repo-path.js';
import type { SessionRecord } from '../../store/types.js';
import { briefing } from './briefing.js';
import { checkEdit, checkShell, warnEdit } from './checks.js';
import type { HookContext } from './context.js';
import { writeEnvFile } from './env-file.js';
import { noteRecord } from './records.js';
import { recordTouched, setTouched } from './touched.js';
import { utcMinute } from '../../core/duration.js';
import { subagentSessionId } from '../../core/subagent-session.js';

// The one policy behind every agent's hooks (adapters only translate). Decisions:
//   session-start  register/re-attach `<agent>:<id>`, brief the model, export LANES_SESSION
//   pre-edit       deny a path another live session claimed; warn when another live session changed it
//   pre-shell      deny index-changing git commands in a worktree another live session shares
//   post-edit      record the touched paths on the session (+ heartbeat, done by the caller); the warning again
//   stop           heartbeat; the session shows finished; a snapshot per turn with [snapshot] on_stop = true
//   waiting        the session shows waiting for its person (notified when new: services/notify)
//   prompt         the agent works again (as every tool call: the closing heartbeat clears waiting and finished)
//   session-end    snapshot dirty work, release claims and ports, end the session

export async function decide(ctx: HookContext, event: HookEvent): Promise<HookDecision> {
  const working = ['session-start', 'pre-edit', 'pre-shell', 'post-edit', 'prompt'].includes(event.kind);
  if (working) ctx.working();
  switch (event.kind) {
    case 'ignore':
      return ALLOW;
    case 'prompt': {
      const s = await ctx.findSession(hookSessionId(event));
      if (s?.attention) await ctx.settle(s.id);
      return ALLOW;
    }
    case 'session-start':
      return sessionStart(ctx, event);
    case 'pre-edit':
      return checkEdit(ctx, await selfOf(ctx, event), event.paths);
    case 'pre-shell':
      return checkShell(ctx, await selfOf(ctx, event), event.cwd, event.command ?? '');
    case 'post-edit':
      return postEdit(ctx, event);
    case 'stop':
      return stop(ctx, event);
    case 'waiting':
      await ctx.attend(await ensureSession(ctx, event), 'waiting', event.message);
      return ALLOW;
    case 'session-end':
      return sessionEnd(ctx, event);
    case 'quota':
      return quota(ctx, event);
    case 'subagent-stop':
      return subagentStop(ctx, event);
  }
}

/**
 * The agent's login ran out (its model's API said so): the seat it runs on is exhausted until the
 * reset it named, the session shows waiting (the agent sits on the error), the person is told,
 * and a session lanes started on the seat is moved, kept waiting or stopped by its wrapper
 * ([seats] on_exhausted). An agent on no seat of lanes' still shows waiting with the error.
 */
async function quota(ctx: HookContext, event: HookEvent): Promise<HookDecision> {
  const session = await ensureSession(ctx, event);
  const q = event.quota ?? { why: 'quota', resetAt: null };
  const r = await ctx.seatExhausted({
    agent: event.agent,
    sessions: [session.id, ctx.env['LANES_SESSION'] ?? null],
    env: ctx.env,
    why: q.why,
    message: event.message,
    resetAt: q.resetAt,
  });
  const until = r ? utcMinute(r.until) : null;
  const said = r
    ? `seat ${r.seat.name} ran out (${q.why}); lanes uses it again after ${until}`
    : `the login ran out (${q.why})${event.message ? `: ${event.message}` : ''}`;
  await ctx.attend(session, 'waiting', said);
  if (r?.changed) await ctx.notifyExhausted(session, said);
  return { ...ALLOW, notice: said };
}

/**
 * Registers the agent session (or re-attaches it: resume, clear, compact) to the agent process:
 * the pid the agent names, else the agent found above the hook's shell, else the hook's parent.
 * Inside a lanes run (lanes new, up, start -- CMD) the agent's session is the run's: bound to it,
 * never a second session beside it (one agent, one session).
 */
async function attach(
  ctx: HookContext,
  event: HookEvent,
): Promise<{ session: SessionRecord; created: boolean; reopened: boolean }> {
  // The hook's ancestors are read once (one `ps` for the whole walk on macOS), and only when needed.
  let chain: ProcessFacts[] | undefined;
  const up = () => (chain ??= lineage(process.ppid, 24));
  const known = (pid: number) => chain?.some((f) => f.pid === pid) || identityOf(pid) !== null;
  const named = event.agentPid ?? agentPid(process.ppid, up());
  // The hook's parent last, unchecked: attaching proves it runs, or says why lanes cannot tell.
  let pid = process.ppid;
  for (const candidate of [() => named, () => callerPid(process.ppid, up())]) {
    const p = candidate();
    if (known(p)) {
      pid = p;
      break;
    }
  }
  const id = hookSessionId(event);
  const run = ctx.env['LANES_RUN'] ? await ctx.runAbove(up()) : null;
  const bound = run ? await ctx.bindRun(run, { conversation: id, agent: event.agent, pid }) : null;
  if (bound) return { session: bound, created: false, reopened: false };
  return ctx.attachSession({ id, agent: event.agent, cwd: event.cwd, pid });
}

/**
 * The session a tool call acts as: the agent's own (`<agent>:<id>`), or, inside a lanes run, the
 * run's session it is bound to (bound now when its session-start was not seen). Outside a run no
 * read is added to the hot path.
 */
async function selfOf(ctx: HookContext, event: HookEvent): Promise<string> {
  const id = hookSessionId(event);
  let self = id;
  if (ctx.env['LANES_RUN'])
    try {
      self = (await ensureSession(ctx, event)).id;
    } catch {
      // lanes cannot register it (no proof of life here): checked as the agent's own id, as before
    }
  return event.subagent ? ((await subagentSession(ctx, event))?.id ?? self) : self;
}

/**
 * The session of the subagent whose call this is, when it works in a worktree of its own
 * (isolation: worktree: WorktreeCreate registered it); null for a subagent in its parent's
 * directory, which acts as its parent.
 */
async function subagentSession(ctx: HookContext, event: HookEvent): Promise<SessionRecord | null> {
  if (!event.subagent) return null;
  const s = await ctx.findSession(subagentSessionId(hookSessionId(event), event.subagent));
  return s && s.endedAt === null ? s : null;
}

/**
 * A subagent finished. Its worktree (Claude Code never sends WorktreeRemove for one a hook made)
 * goes with its branch and session when nothing changed there, as Claude Code removes its own;
 * with changes its session ends (its uncommitted work snapshotted first) and worktree and branch stay.
 */
async function subagentStop(ctx: HookContext, event: HookEvent): Promise<HookDecision> {
  const sub = await subagentSession(ctx, event);
  if (!sub) return ALLOW;
  const pids = lineage(process.pid, 4, false).map((p) => p.pid);
  return { ...ALLOW, notice: await ctx.settleSubagent(sub, hookSessionId(event), pids) };
}

async function sessionStart(ctx: HookContext, event: HookEvent): Promise<HookDecision> {
  let session: SessionRecord;
  try {
    ({ session } = await attach(ctx, event));
    if (session.id !== hookSessionId(event)) ctx.actAs(session.id);
  } catch (e) {
    if (isLanesError(e, 'E_PLATFORM')) return unprotected(e.message);
    throw e;
  }
  let notice: string | null = null;
  if (event.record) await noteRecord(ctx, session, event.agent, event.record);
  if (event.envFile) {
    try {
      writeEnvFile(event.envFile, session.id);
    } catch (e) {
      notice = `could not write LANES_SESSION to ${event.envFile}: ${(e as Error).message}`;
    }
  }
  return { ...ALLOW, context: capText(await briefing(ctx, session)), notice, session: session.id };
}

/**
 * lanes cannot prove liveness on this host (unsupported OS, /proc hidden, ps missing): the session
 * is not registered, so nothing it does is checked. The model and the person are told so, and why,
 * instead of an agent working in the belief that lanes guards it.
 */
function unprotected(why: string): HookDecision {
  const text = `lanes cannot protect this session: ${why}. Other sessions' claims are not checked and this session's edits are not recorded; coordinate with other sessions yourself.`;
  return { ...ALLOW, context: text, notice: text };
}

/** The session's record, registering it when the agent's session-start hook never ran (hooks installed mid-session). */
async function ensureSession(ctx: HookContext, event: HookEvent): Promise<SessionRecord> {
  const found = await ctx.findSession(hookSessionId(event));
  const s = found && found.endedAt === null ? found : (await attach(ctx, event)).session;
  // Bound to a lanes run: the call's closing heartbeat is the run's.
  if (s.id !== hookSessionId(event)) ctx.actAs(s.id);
  return s;
}

async function postEdit(ctx: HookContext, event: HookEvent): Promise<HookDecision> {
  const parent = await ensureSession(ctx, event);
  const session = (await subagentSession(ctx, event)) ?? parent;
  const cache = new Map();
  const rels: string[] = [];
  for (const p of event.paths) {
    const at = await locateInRepo(p, cache);
    if (at && (session.repo === null || ctx.repoId(at.repo) === session.repo)) rels.push(at.rel);
    // A file outside every repository (~/.npmrc) is recorded by its absolute path, for the others' warning.
    else if (!at) rels.push(resolve(p).normalize('NFC'));
  }
  if (rels.length === 0) return ALLOW;
  const ok = await recordTouched(ctx, session, rels);
  if (!ok)
    return {
      ...ALLOW,
      notice: `the state of ${session.id} is not a JSON object; edited paths were not recorded (lanes state clear fixes it)`,
    };
  // The early-conflict warning again, for the agents whose model sees only what comes after the
  // tool (Gemini's AfterTool context); the adapters of the others show the one given before it.
  return warnEdit(ctx, session.id, event.paths);
}

async function stop(ctx: HookContext, event: HookEvent): Promise<HookDecision> {
  const session = await ensureSession(ctx, event);
  // A turn that stopped on an error (Cursor's stop with status error, OpenCode's idle after one)
  // leaves the agent waiting for its person; else the turn finished.
  await ctx.attend(session, event.source === 'error' ? 'waiting' : 'finished', event.message);
  if (event.record) await noteRecord(ctx, session, event.agent, event.record);
  if (!session.worktree || !existsSync(session.worktree)) return ALLOW;
  await refreshTouched(ctx, session);
  const config = await ctx.config(session.worktree);
  if (!config.snapshot.onStop) return ALLOW;
  const r = await ctx.snapshot(session.worktree, session.id, `turn end (${event.agent})`);
  return { ...ALLOW, notice: r.created && r.snapshot ? `snapshot ${r.snapshot.ref} saved` : null };
}

/**
 * End of turn: the session's edited paths become what its worktree has changed and not landed,
 * so the early-conflict warnings also see changes made by shell commands. Only in a worktree of
 * its own: in a shared one, git cannot tell whose changes are whose, and the after-edit records stay.
 */
async function refreshTouched(ctx: HookContext, session: SessionRecord): Promise<void> {
  const sharers = await ctx.liveSessions(
    (s) => s.id !== session.id && s.worktree === session.worktree && s.owner.host === session.owner.host,
  );
  if (sharers.length > 0) return;
  const { changedNotLanded } = await import('../../git/worktree-changes.js');
  await setTouched(ctx, session, await changedNotLanded(session.worktree as string));
}

async function sessionEnd(ctx: HookContext, event: HookEvent): Promise<HookDecision> {
  const id = hookSessionId(event);
  const found = await ctx.findSession(id);
  if (!found || found.endedAt !== null) return ALLOW;
  // It ended on its login running out (the agent said so at its end): its seat is exhausted first.
  const ranOut = event.quota ? (await quota(ctx, event)).notice : null;
  // Bound to a lanes run: the run's session ends with the run (its wrapper snapshots and ends it
  // when the agent exits); a /clear or a new conversation in the same agent binds again.
  if (found.id !== id) {
    const goes = `${event.agent} session ${event.agentSessionId} ended; lanes session ${found.id} goes on until its run ends`;
    return { ...ALLOW, notice: ranOut ? `${ranOut}; ${goes}` : goes };
  }
  const r = await ctx.endSession(id, `${event.agent} session ended${event.source ? ` (${event.source})` : ''}`);
  const saved = r.snapshot ? `, work saved in ${r.snapshot.ref}` : '';
  const ended = `session ${id} ended, ${r.released.length} claim(s) released${saved}`;
  return { ...ALLOW, notice: ranOut ? `${ranOut}; ${ended}` : ended };
}
