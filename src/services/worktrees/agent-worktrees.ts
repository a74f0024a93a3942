import { existsSync, realpathSync } from 'node:fs';
import { worktreeSessionId } from '../../core/subagent-session.js';
import { LanesError } from '../../core/errors.js';
import { defaultBranch, isAncestor, revParse } from '../../git/worktree.js';
import type { LanesContext } from '../context.js';
import type { EndOptions, EndResult } from '../sessions/end-session.js';
import type { SessionService } from '../sessions/sessions.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import { removeWorktreeSafely } from './remove-safely.js';
import type { Removal } from './remove-safely.js';
import { linkedAt, readScene, real } from './worktree-facts.js';
import { loadConfig } from '../config.js';
import type { CreatedWorktree } from './worktrees.js';
import type { SessionRecord } from '../../store/types.js';

// An agent that makes worktrees of its own (Claude Code: `claude --worktree NAME`, EnterWorktree,
// subagents with isolation: worktree) asks lanes through its WorktreeCreate hook instead: the
// worktree is a lanes worktree (<repo>.lanes/<slug>, branch lanes/<slug>, .worktreeinclude,
// marked as lanes') and a lanes session works in it. WorktreeRemove removes it the safe way.

export interface AgentWorktreeRequest {
  agent: string;
  /** lanes' id of the agent's session (`claude-code:<its session id>`). */
  session: string;
  /** The name the agent gave (Claude Code: the --worktree name, or `agent-a<hex>` for a subagent). */
  name: string;
  /** The agent process: owner of the session registered for the worktree. */
  pid: number;
}

export interface AgentWorktree extends CreatedWorktree {
  /** The session that works in it: the agent's own when it starts there, else one of its own for the worktree. */
  session: string | null;
  /** Why no session was registered (the worktree was made all the same: the agent needs it). */
  unregistered: string | null;
}

export async function createAgentWorktree(
  ctx: LanesContext,
  sessions: SessionService,
  o: AgentWorktreeRequest,
): Promise<AgentWorktree> {
  const name = o.name.trim();
  if (!name || name.length > 200 || /[\0\n\r]/.test(name))
    throw new LanesError('E_USAGE', `${o.agent} asked for a worktree named ${JSON.stringify(o.name)}`, {
      hint: 'a worktree name is 1-200 characters on one line',
    });
  // Loaded here, not with this module: the hot bundle need not carry worktree creation.
  const { createSessionWorktree } = await import('./worktrees.js');
  const made = await createSessionWorktree(ctx, { label: name, by: o.agent });
  // Claude Code refuses a path with a symlink in it: the real one, as git made it.
  const path = realpathSync(made.path);
  let session: string | null = null;
  let unregistered: string | null = null;
  try {
    const existing = await sessions.find(o.session);
    if (!existing || existing.endedAt !== null) {
      // `claude --worktree NAME`: the agent's session starts in it (its SessionStart re-attaches).
      session = (await sessions.attach({ id: o.session, agent: o.agent, cwd: path, pid: o.pid })).session.id;
    } else {
      // A live session makes a worktree for a subagent (or moves): the worktree gets its own session.
      // Tied to the session it was made for: the agent's own, or the lanes run it is bound to.
      const id = worktreeSessionId(o.session, made.slug);
      session = (
        await sessions.start({ id, pid: o.pid, agent: o.agent, label: name, worktree: path, parent: existing.id })
      ).id;
    }
  } catch (e) {
    unregistered = (e as Error).message.split('\n')[0] ?? String(e);
  }
  return { ...made, path, session, unregistered };
}

export interface AgentRemoval extends Removal {
  path: string;
  /** The sessions of the worktree ended with it (not the agent's own, which goes on). */
  ended: string[];
}

/**
 * WorktreeRemove: the agent's worktree goes when lanes made it, no one else works in it and it has
 * no uncommitted work (saved in a snapshot first either way); else it stays, with the reason
 * (journaled: the agent shows its person only "kept"). Its branch goes when merged.
 */
export async function removeAgentWorktree(
  ctx: LanesContext,
  deps: { snapshots: SnapshotService; end: (id: string, o: EndOptions) => Promise<EndResult> },
  o: { agent: string; session: string; path: string; pid: number; pids: number[]; forceBranch?: boolean },
): Promise<AgentRemoval> {
  const out = (r: Removal, ended: string[] = []): AgentRemoval => ({ ...r, path: o.path, ended });
  const nothing: Removal = { removed: true, refused: null, snapshot: null, branchDeleted: null, notes: [] };
  if (!existsSync(o.path)) return out({ ...nothing, notes: ['nothing is there any more'] });
  const scene = await readScene(ctx, { openOnly: true });
  const at = real(o.path);
  const entry = linkedAt(scene, o.path);
  const mine = scene.sessions.filter(
    (s) => (s.id === o.session || s.id.startsWith(`${o.session}.`)) && scene.paths.get(s.id)?.worktree === at,
  );
  const result = entry
    ? await removeWorktreeSafely(ctx, deps.snapshots, scene, entry, {
        owner: mine.find((s) => s.id !== o.session)?.id ?? o.session,
        reason: `${o.agent} removed its worktree`,
        ignore: {
          sessions: new Set([o.session, ...mine.map((s) => s.id)]),
          trees: new Set([o.pid]),
          pids: new Set(o.pids),
        },
        mainBranch: await defaultBranch(scene.mainWorktree),
        ...(o.forceBranch ? { forceBranch: true } : {}),
        keepUncommitted: true,
        ignored: 'refuse',
        // The user's [worktree] reclaim, as lanes gc --worktrees reads it.
        reclaim: (await loadConfig(ctx, scene.mainWorktree)).worktree.reclaim,
      })
    : {
        ...nothing,
        removed: false,
        refused: { rule: 'not-made-by-lanes' as const, why: 'it is no linked worktree of this repository' },
      };
  const ended: string[] = [];
  if (result.removed)
    for (const s of mine.filter((m) => m.id !== o.session)) {
      await deps.end(s.id, { reason: `${o.agent} removed its worktree` });
      ended.push(s.id);
    }
  await ctx.journal.record({
    kind: result.removed ? 'worktree.remove' : 'worktree.refuse',
    subject: o.path,
    session: o.session,
    repo: scene.commonDir,
    details: {
      by: `${o.agent} WorktreeRemove`,
      ...(result.refused ? { rule: result.refused.rule, why: result.refused.why } : {}),
      snapshot: result.snapshot?.ref ?? null,
      branchDeleted: result.branchDeleted,
      ended,
    },
  });
  return out(result, ended);
}

/**
 * A subagent's end (Claude Code's SubagentStop; it never sends WorktreeRemove for a worktree a hook
 * made): as Claude Code settles its own, the worktree goes with its branch and session when nothing
 * changed there (no uncommitted or untracked file, no commit its parent's HEAD lacks); else its
 * session ends, its uncommitted work snapshotted first, and worktree and branch stay for the parent
 * (or a person) to take. What was done, in words.
 */
export async function settleSubagentWorktree(
  ctx: LanesContext,
  deps: { snapshots: SnapshotService; end: (id: string, o: EndOptions) => Promise<EndResult> },
  o: { sub: SessionRecord; agentSession: string; pids: number[] },
): Promise<string> {
  const { sub } = o;
  const path = sub.worktree;
  if (!path || !existsSync(path)) {
    await deps.end(sub.id, { reason: 'its subagent finished; its worktree is gone' });
    return `subagent session ${sub.id} ended (its worktree is gone)`;
  }
  const parent = sub.parent ? await ctx.store.getSession(sub.parent) : null;
  const { status } = await import('../../git/status.js');
  const dirty = (await status(path)).length > 0;
  const head = await revParse(path, 'HEAD');
  const against = parent?.worktree && existsSync(parent.worktree) ? parent.worktree : null;
  const base = against ? await revParse(against, 'HEAD') : await defaultBranch(path);
  // A commit the parent's HEAD (or the main branch) does not have is the subagent's work.
  const ahead = head !== null && base !== null ? !(await isAncestor(path, head, base)) : true;
  if (!dirty && !ahead) {
    const r = await removeAgentWorktree(ctx, deps, {
      agent: sub.agent ?? 'claude-code',
      session: o.agentSession,
      path,
      pid: sub.owner.pid,
      pids: o.pids,
      forceBranch: true,
    });
    if (r.removed) {
      if (!r.ended.includes(sub.id)) await deps.end(sub.id, { reason: 'its subagent finished with nothing changed' });
      return `subagent worktree ${path} removed (nothing changed)${r.branchDeleted ? ` with branch ${r.branchDeleted}` : ''}`;
    }
    // Refused (a process still in it, …): kept, as with changes.
    await deps.end(sub.id, { reason: `its subagent finished; worktree kept: ${r.refused?.why ?? 'refused'}` });
    return `subagent worktree ${path} kept: ${r.refused?.why ?? 'refused'}`;
  }
  const ended = await deps.end(sub.id, { reason: 'its subagent finished; its worktree and branch are kept' });
  const what = [dirty ? 'uncommitted work' : null, ahead ? 'commits of its own' : null].filter(Boolean).join(' and ');
  const saved = ended.snapshot ? `; uncommitted work saved in ${ended.snapshot.ref}` : '';
  return `subagent worktree ${path} kept (${what})${saved}`;
}
