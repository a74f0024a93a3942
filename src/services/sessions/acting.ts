import { AGENT_SESSION_ENV } from '../../core/hook-event.js';
import { lineage } from '../../core/process-identity.js';
import type { ProcessFacts } from '../../core/platform/types.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { realDir } from '../../core/real-dir.js';
import { within } from '../../core/subagent-session.js';

// "Which session is acting" has one answer for every door: the CLI in a person's shell and in an
// agent's shell, the git hooks lanes installs, the MCP server. An agent's hooks register the
// agent's session owned by the agent process, so a command the model runs in that agent's shell
// (a descendant of the agent) is found to act as it, whatever the agent does with the environment.

export interface ActingSession {
  id: string;
  /** How it was found, for `lanes whoami` and error messages. */
  how: string;
}

const sameProcess = (s: SessionRecord, f: ProcessFacts, ctx: LanesContext) =>
  s.owner.host === ctx.host &&
  s.owner.bootId === ctx.bootId &&
  s.owner.pid === f.pid &&
  s.owner.startTime === f.startTime;

/**
 * The session this process acts as:
 * - `envId` (LANES_SESSION) when set, unless a live session is owned by a process nearer to this
 *   one than its owner (`lanes start -- codex` sets LANES_SESSION for codex, whose hooks register
 *   codex's own session: the model's commands act as codex's session, as its edits do), or, with
 *   its owner out of sight, the agent running this command names its own live session; a
 *   LANES_SESSION naming a session that is not live stays (the command says why);
 * - without LANES_SESSION, the live session owned by the nearest ancestor of this process (its
 *   proof of life: host, boot, pid and start time, as every owner is proven);
 * - else the live session the agent names in this command's environment (CODEX_SESSION_ID, …);
 * - else null.
 */
export async function actingSession(
  ctx: LanesContext,
  envId: string | null,
  from: number = process.ppid,
): Promise<ActingSession | null> {
  const envSession = envId ? await ctx.store.getSession(envId).catch(() => null) : null;
  // Pids, parents and start times are what an owner is proven by: no command lines. Read only as
  // far up as needed: a LANES_SESSION owned by the caller (a shell, `lanes start -- CMD`) is near.
  const envOpen = envSession && envSession.endedAt === null ? envSession : null;
  let chain: ProcessFacts[] = [];
  let envAt = -1;
  for (const depth of envOpen ? [1, 4, 24] : [24]) {
    chain = lineage(from, depth, false);
    envAt = envOpen ? chain.findIndex((f) => sameProcess(envOpen, f, ctx)) : -1;
    if (chain.length < depth || envAt !== -1) break;
  }
  // Only the processes nearer than the environment's session's owner can own a nearer session; an
  // owner among this process' ancestors was just read running (live without another read). A
  // LANES_SESSION whose owner is not an ancestor, or that is not live, is kept as named (the command
  // then says it is dead, ended or unknown): acting silently as another session would be a wrong-owner act.
  // A subagent in a worktree of its own (Claude Code's isolation: worktree) runs under its parent's
  // agent process, which owns the LANES_SESSION its env file names: there, its session too.
  const nearer = envId === null ? chain : chain.slice(0, envAt + 1);
  const found = nearer.length > 0 ? await nearestOwned(ctx, nearer, envAt === -1 ? -1 : envAt) : null;
  if (found) return found;
  if (!envId) return namedByAgent(ctx);
  // LANES_SESSION's owner out of sight (`lanes start -- codex`, then Codex's sandbox): the session
  // the agent running this command names is nearer, as its hooks check its edits as that session.
  if (envAt === -1 && envOpen) {
    const named = await namedByAgent(ctx);
    if (named && named.id !== envId) return named;
  }
  return { id: envId, how: 'LANES_SESSION' };
}

/**
 * The session an agent names in the environment it gives its shell commands (AGENT_SESSION_ENV),
 * when the store has it open: the last resort, for sandboxes that hide every ancestor.
 */
async function namedByAgent(ctx: LanesContext): Promise<ActingSession | null> {
  for (const [name, agent] of AGENT_SESSION_ENV) {
    const value = ctx.env[name];
    if (!value) continue;
    const id = `${agent}:${value}`;
    // The agent's own session, or the lanes run it is bound to (one agent, one session).
    const s =
      (await ctx.store.getSession(id).catch(() => null)) ??
      (await ctx.store.sessionByConversation(id).catch(() => null));
    if (s && s.endedAt === null && (await ctx.stateOf(s)).state === 'live')
      return {
        id: s.id,
        how: `${name}, the session ${agent} gave this command${s.id === id ? '' : ` (bound to ${s.id})`}`,
      };
  }
  return null;
}

/**
 * The live session owned by the nearest process of `chain`. A subagent's session (one with a
 * parent: a worktree its agent made for it) acts only for commands run in its worktree, and before
 * its parent's there; at `subagentsOnlyAt` (the owner of LANES_SESSION) only such a session counts.
 */
async function nearestOwned(
  ctx: LanesContext,
  chain: ProcessFacts[],
  subagentsOnlyAt = -1,
): Promise<ActingSession | null> {
  const pids = new Set(chain.map((f) => f.pid));
  const candidates = (await ctx.store.listSessions({ includeEnded: false, includeDead: false })).filter(
    (s) => s.owner.host === ctx.host && pids.has(s.owner.pid),
  );
  if (candidates.length === 0) return null;
  const here = realDir(ctx.cwd);
  // Owned by an ancestor read running just now (same host, pid and start time; this boot, since it
  // is this process' ancestor): live, as the liveness proof would find it, without another read.
  for (const [i, f] of chain.entries()) {
    const owned = candidates
      .filter((s) => sameProcess(s, f, ctx))
      .filter((s) => (s.parent === null ? i !== subagentsOnlyAt : within(here, s.worktree)))
      // A subagent's session first (only ever here in its worktree); then the agent's own session
      // (its hooks registered `<agent>:<id>`) before one registered for it by `lanes mcp` or
      // `start --pid` (`s-…`); among those, the newest (re-attached after /clear).
      .sort(
        (a, b) =>
          Number(b.parent !== null) - Number(a.parent !== null) ||
          Number(b.id.includes(':')) - Number(a.id.includes(':')) ||
          b.createdAt - a.createdAt,
      );
    const s = owned[0];
    if (s)
      return {
        id: s.id,
        how:
          s.parent !== null
            ? `the session of the subagent working in ${s.worktree} (pid ${f.pid}, ${f.name || 'process'})`
            : `the session of pid ${f.pid} (${f.name || 'process'}), an ancestor of this process`,
      };
  }
  return null;
}

/**
 * Sets the session `ctx` acts as and says how it was found: the `session` option when given (an id
 * or a name; null: none), else the acting session. Unreadable process facts or a busy store leave LANES_SESSION.
 */
export async function adoptActing(ctx: LanesContext, session: string | null | undefined): Promise<string | null> {
  // A session given by name (its label, ticket or tmux name: named.ts) acts by its id. An id as
  // given (`s-…`, an agent's `<agent>:<id>`: what every hook call passes) is taken without a read.
  if (session && !/^s-[a-z0-9]+$/.test(session) && !session.includes(':'))
    ctx.sessionId = (await (await import('./named.js')).sessionNamed(ctx, session)).id;
  if (session !== undefined) return session ? 'given' : null;
  const envId = ctx.env['LANES_SESSION'] || null;
  const acting = await actingSession(ctx, envId).catch(() => (envId ? { id: envId, how: 'LANES_SESSION' } : null));
  ctx.sessionId = acting?.id ?? null;
  return acting?.how ?? null;
}
