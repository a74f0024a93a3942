import { existsSync } from 'node:fs';
import { LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import { hookState, hooksDir } from '../../git/hooks.js';
import { status } from '../../git/status.js';
import { listWorktrees, pruneWorktrees } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import type { EndOptions, EndResult } from '../sessions/end-session.js';
import type { StateService } from '../state/state.js';

export type FindingKind =
  | 'dead-session'
  | 'orphan-worktree'
  | 'missing-worktree'
  | 'dead-claim'
  | 'shared-worktree'
  | 'same-ticket'
  | 'guard-missing';

export interface Finding {
  kind: FindingKind;
  message: string;
  session?: string;
  worktree?: string;
  /** What --fix did about it, when it did something. */
  fixed?: string;
}

export interface DoctorReport {
  findings: Finding[];
  fixed: boolean;
}

/**
 * Health of the repository's sessions, worktrees and claims. --fix ends dead sessions after
 * snapshotting their dirty work (under each session's state gate, so never mid-mutation), which
 * releases their claims, and prunes worktrees whose directory is gone. It deletes no unsaved work.
 */
export async function doctor(
  ctx: LanesContext,
  deps: { state: StateService; end: (id: string, options: EndOptions) => Promise<EndResult> },
  options: { fix?: boolean } = {},
): Promise<DoctorReport> {
  const repo = await ctx.repo();
  if (!repo)
    throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git repository`, {
      hint: 'run lanes doctor inside the repository',
    });
  const findings: Finding[] = [];
  // This machine's sessions only: a team store also holds other hosts', whose worktrees are not here.
  const sessions = (await ctx.store.listSessions({ includeEnded: false })).filter(
    (s) => s.repo === ctx.repoId(repo) && s.owner.host === ctx.host,
  );
  const liveness = await ctx.statesOf(sessions);
  const states = new Map([...liveness].map(([id, l]) => [id, l.state]));
  const worktrees = (await listWorktrees(repo.worktreeRoot)).filter((w) => !w.bare);
  const claims = await ctx.store.listClaims();

  const dead = sessions.filter((s) => states.get(s.id) === 'dead');
  for (const s of dead) {
    const held = claims.filter((c) => c.sessionId === s.id);
    findings.push({
      kind: 'dead-session',
      session: s.id,
      message: `session ${s.id}${s.label ? ` (${s.label})` : ''} is dead (${liveness.get(s.id)?.verdict.why}) but never ended`,
    });
    for (const c of held)
      findings.push({
        kind: 'dead-claim',
        session: s.id,
        message: `${formatResource(c)} (token ${c.token}) is held by dead session ${s.id}`,
      });
  }
  for (const w of worktrees) {
    if (!existsSync(w.path)) {
      findings.push({
        kind: 'missing-worktree',
        worktree: w.path,
        message: `worktree ${w.path} is registered with git but its directory is gone`,
      });
      continue;
    }
    const here = sessions.filter((s) => s.worktree === w.path);
    const live = here.filter((s) => states.get(s.id) === 'live');
    if (here.length === 0 && w.path !== worktrees[0]?.path) {
      const dirty = (await status(w.path)).length;
      findings.push({
        kind: 'orphan-worktree',
        worktree: w.path,
        message: `worktree ${w.path} has no session${dirty ? ` and ${dirty} uncommitted files (lanes sweep saves them)` : ''}`,
      });
    }
    if (live.length > 1)
      findings.push({
        kind: 'shared-worktree',
        worktree: w.path,
        message: `${live.length} live sessions share ${w.path} and its index: ${live.map((s) => s.id).join(', ')} (give each its own: lanes start --worktree)`,
      });
  }
  for (const s of sessions) {
    if (s.worktree && !existsSync(s.worktree))
      findings.push({
        kind: 'missing-worktree',
        session: s.id,
        worktree: s.worktree,
        message: `session ${s.id}'s worktree ${s.worktree} is gone`,
      });
  }
  const byTicket = new Map<string, SessionRecord[]>();
  for (const s of sessions) if (s.ticket) byTicket.set(s.ticket, [...(byTicket.get(s.ticket) ?? []), s]);
  for (const [ticket, group] of byTicket) {
    if (group.length > 1)
      findings.push({
        kind: 'same-ticket',
        message: `ticket ${ticket} is worked on by ${group.map((s) => `${s.id} (${states.get(s.id)})`).join(' and ')}`,
      });
  }
  const dir = await hooksDir(repo.worktreeRoot);
  if (!hookState(dir, 'pre-commit').installed)
    findings.push({ kind: 'guard-missing', message: `lanes guard is not installed in ${dir} (lanes guard install)` });

  if (options.fix) {
    for (const s of dead) {
      // Under the session's gate: a dead session is never ended while something mutates its state.
      let result: EndResult | undefined;
      await deps.state.mutate(s.id, async () => {
        result = await deps.end(s.id, { reason: 'ended by lanes doctor --fix: owner dead' });
        return undefined;
      });
      const note = `ended${result?.snapshot ? `, work saved as ${result.snapshot.ref}` : ''}${result?.released.length ? `, released ${result.released.map(formatResource).join(', ')}` : ''}`;
      for (const f of findings)
        if (f.session === s.id && (f.kind === 'dead-session' || f.kind === 'dead-claim')) f.fixed = note;
    }
    if (findings.some((f) => f.kind === 'missing-worktree' && !f.session)) {
      await pruneWorktrees(repo.worktreeRoot);
      for (const f of findings)
        if (f.kind === 'missing-worktree' && !f.session) f.fixed = 'pruned (git worktree prune)';
    }
  }
  return { findings, fixed: options.fix === true };
}
