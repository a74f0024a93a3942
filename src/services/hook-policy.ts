import { existsSync } from 'node:fs';
import { ALLOW, capText } from '../core/hook-event.js';
import type { HookDecision, HookEvent } from '../core/hook-event.js';
import { assertSessionId } from '../core/ids.js';
import { agentPid, callerPid, identityOf } from '../core/process-identity.js';
import type { SessionRecord } from '../store/types.js';
import type { Lanes } from './lanes.js';
import { checkEdit, checkShell } from './hook-checks.js';
import { briefing } from './hook-briefing.js';
import { writeEnvFile } from './hook-env-file.js';
import { locateInRepo } from './repo-path.js';
import { recordTouched, setTouched } from './touched.js';

// The one policy behind every agent's hooks (adapters only translate). Decisions:
//   session-start  register/re-attach `<agent>:<id>`, brief the model, export LANES_SESSION
//   pre-edit       deny a path another live session claimed; warn when another live session changed it
//   pre-shell      deny index-changing git commands in a worktree another live session shares
//   post-edit      record the touched paths on the session (+ heartbeat, done by the caller)
//   stop           heartbeat; a snapshot per turn with [snapshot] on_stop = true
//   session-end    snapshot dirty work, release claims and ports, end the session

/** The lanes session id of an agent session. */
export function hookSessionId(event: HookEvent): string {
  return assertSessionId(`${event.agent}:${event.agentSessionId}`, `${event.agent} session id`);
}

export async function decide(lanes: Lanes, event: HookEvent): Promise<HookDecision> {
  switch (event.kind) {
    case 'ignore':
      return ALLOW;
    case 'session-start':
      return sessionStart(lanes, event);
    case 'pre-edit':
      return checkEdit(lanes, hookSessionId(event), event.paths);
    case 'pre-shell':
      return checkShell(lanes, hookSessionId(event), event.cwd, event.command ?? '');
    case 'post-edit':
      return postEdit(lanes, event);
    case 'stop':
      return stop(lanes, event);
    case 'session-end':
      return sessionEnd(lanes, event);
  }
}

/** Registers the agent session (or re-attaches it: resume, clear, compact) to the agent process. */
export async function attach(lanes: Lanes, event: HookEvent): Promise<{ session: SessionRecord; created: boolean; reopened: boolean }> {
  const id = hookSessionId(event);
  const pid = event.agentPid ?? agentPid(process.ppid);
  const owner = identityOf(pid) ?? identityOf(callerPid(process.ppid)) ?? identityOf(process.ppid);
  if (!owner) throw new Error(`cannot read the identity of the agent process ${pid}`);
  const repo = await lanes.context.repo();
  return lanes.store.attachSession({
    id,
    label: null,
    agent: event.agent,
    ticket: null,
    repo: repo ? lanes.context.repoId(repo) : null,
    worktree: repo?.worktreeRoot ?? null,
    cwd: event.cwd,
    owner,
    command: null,
  });
}

async function sessionStart(lanes: Lanes, event: HookEvent): Promise<HookDecision> {
  const { session } = await attach(lanes, event);
  let notice: string | null = null;
  if (event.envFile) {
    try {
      writeEnvFile(event.envFile, session.id);
    } catch (e) {
      notice = `could not write LANES_SESSION to ${event.envFile}: ${(e as Error).message}`;
    }
  }
  return { ...ALLOW, context: capText(await briefing(lanes, session)), notice };
}

/** The session's record, registering it when the agent's session-start hook never ran (hooks installed mid-session). */
async function ensureSession(lanes: Lanes, event: HookEvent): Promise<SessionRecord> {
  const found = await lanes.store.getSession(hookSessionId(event));
  return found && found.endedAt === null ? found : (await attach(lanes, event)).session;
}

async function postEdit(lanes: Lanes, event: HookEvent): Promise<HookDecision> {
  const session = await ensureSession(lanes, event);
  const cache = new Map();
  const rels: string[] = [];
  for (const p of event.paths) {
    const at = await locateInRepo(p, cache);
    if (at && (session.repo === null || lanes.context.repoId(at.repo) === session.repo)) rels.push(at.rel);
  }
  if (rels.length === 0) return ALLOW;
  const ok = await recordTouched(lanes.state, session.id, rels);
  return ok ? ALLOW : { ...ALLOW, notice: `the state of ${session.id} is not a JSON object; edited paths were not recorded (lanes state clear fixes it)` };
}

async function stop(lanes: Lanes, event: HookEvent): Promise<HookDecision> {
  const session = await ensureSession(lanes, event);
  if (!session.worktree || !existsSync(session.worktree)) return ALLOW;
  await refreshTouched(lanes, session);
  const { loadConfig } = await import('./config.js');
  const config = await loadConfig(lanes.context, session.worktree);
  if (!config.snapshot.onStop) return ALLOW;
  const r = await lanes.snapshots.snapshot(session.worktree, session.id, `turn end (${event.agent})`);
  return { ...ALLOW, notice: r.created ? `snapshot ${r.snapshot.ref} saved` : null };
}

/**
 * End of turn: the session's edited paths become what its worktree has changed and not landed,
 * so the early-conflict warnings also see changes made by shell commands. Only in a worktree of
 * its own: in a shared one, git cannot tell whose changes are whose, and the after-edit records stay.
 */
async function refreshTouched(lanes: Lanes, session: SessionRecord): Promise<void> {
  const sharers = await lanes.context.liveSessions((s) => s.id !== session.id && s.worktree === session.worktree && s.owner.host === session.owner.host);
  if (sharers.length > 0) return;
  const { changedNotLanded } = await import('./worktree-changes.js');
  await setTouched(lanes.state, session.id, await changedNotLanded(session.worktree as string));
}

async function sessionEnd(lanes: Lanes, event: HookEvent): Promise<HookDecision> {
  const id = hookSessionId(event);
  const found = await lanes.store.getSession(id);
  if (!found || found.endedAt !== null) return ALLOW;
  const { endSession } = await import('./end-session.js');
  const r = await endSession(lanes.sessions, lanes.snapshots, id, { reason: `${event.agent} session ended${event.source ? ` (${event.source})` : ''}` });
  const saved = r.snapshot ? `, work saved in ${r.snapshot.ref}` : '';
  return { ...ALLOW, notice: `session ${id} ended, ${r.released.length} claim(s) released${saved}` };
}
