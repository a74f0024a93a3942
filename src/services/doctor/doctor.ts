import { existsSync } from 'node:fs';
import { LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import { hookState, hooksDir } from '../../git/hooks.js';
import { gitDirOf, listWorktrees, pruneWorktrees } from '../../git/worktree.js';
import { orphanedLock, removeIfOrphaned } from '../../git/index-lock.js';
import { join } from 'node:path';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import type { EndOptions, EndResult } from '../sessions/end-session.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import { describeSnapshot } from '../snapshots/snapshots.js';
import type { StateService } from '../state/state.js';
import { finding, openCount } from './findings.js';
import type { DoctorReport, Finding } from './findings.js';
import { lastEndedBy, unattendedWorktree } from './worktree-findings.js';
import { finishLanding, landingInFlight } from '../land/finish-landing.js';
import { describeInterrupted, pendingIntents } from '../land/landing-intent.js';
import type { LandingIntent } from '../land/landing-intent.js';
import { describeInterruptedCommit, finishCommit, pendingCommits } from '../commits/commit-intent.js';
import type { Unattended } from './worktree-findings.js';
import { leftovers } from './leftovers.js';

export type { DoctorReport, Finding, FindingKind, Severity } from './findings.js';

export interface DoctorDeps {
  state: StateService;
  end: (id: string, options: EndOptions) => Promise<EndResult>;
  snapshots: SnapshotService;
  /** Runs a session's failed or killed teardown again (`lanes teardown`). */
  teardown?: ((id: string) => Promise<{ ok: boolean; why: string | null } | null>) | undefined;
  /** Installs the guard (`lanes guard install`); absent, --fix says how to. */
  installGuard?: (() => Promise<unknown>) | undefined;
}

/**
 * Health of the repository's sessions, worktrees and claims. Every finding has a severity; only
 * errors and warnings count against it. --fix ends dead sessions after snapshotting their dirty
 * work (under each session's state gate, so never mid-mutation), which releases their claims;
 * snapshots unsaved work of worktrees nobody works in; prunes worktrees whose directory is gone;
 * installs the guard when it may; and says, for each finding it leaves, why. It deletes no work.
 */
export async function doctor(
  ctx: LanesContext,
  deps: DoctorDeps,
  options: { fix?: boolean } = {},
): Promise<DoctorReport> {
  const repo = await ctx.repo();
  if (!repo)
    throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git repository`, {
      hint: 'run lanes doctor inside the repository',
    });
  const findings: Finding[] = [];
  // This machine's sessions only: a team store also holds other hosts', whose worktrees are not here.
  const mine = (await ctx.store.listSessions({ includeEnded: true })).filter(
    (s) => s.repo === ctx.repoId(repo) && s.owner.host === ctx.host,
  );
  const sessions = mine.filter((s) => s.endedAt === null);
  const endedBy = lastEndedBy(mine.filter((s) => s.endedAt !== null));
  const liveness = await ctx.statesOf(sessions);
  const states = new Map([...liveness].map(([id, l]) => [id, l.state]));
  const worktrees = (await listWorktrees(repo.worktreeRoot)).filter((w) => !w.bare);
  const claims = await ctx.store.listClaims();

  const dead = sessions.filter((s) => states.get(s.id) === 'dead');
  for (const s of dead) {
    const why = liveness.get(s.id)?.verdict.why;
    findings.push(
      finding('dead-session', `session ${s.id}${s.label ? ` (${s.label})` : ''} is dead (${why}) but never ended`, {
        session: s.id,
      }),
    );
    for (const c of claims.filter((c) => c.sessionId === s.id))
      findings.push(
        finding('dead-claim', `${formatResource(c)} (token ${c.token}) is held by dead session ${s.id}`, {
          session: s.id,
        }),
      );
  }
  const unsaved: Unattended[] = [];
  const locks: string[] = [];
  for (const w of worktrees) {
    if (!existsSync(w.path)) {
      findings.push(
        finding('missing-worktree', `worktree ${w.path} is registered with git but its directory is gone`, {
          worktree: w.path,
        }),
      );
      continue;
    }
    const gitDir = await gitDirOf(w.path);
    if (orphanedLock(gitDir)) {
      findings.push(
        finding(
          'orphaned-index-lock',
          `${join(gitDir, 'index.lock')} was left by a lanes process that was killed holding it: every git command there fails until it goes`,
          {
            worktree: w.path,
          },
        ),
      );
      locks.push(gitDir);
    }
    const here = sessions.filter((s) => s.worktree === w.path);
    const live = here.filter((s) => states.get(s.id) === 'live');
    if (here.length === 0 && w.path !== worktrees[0]?.path) {
      const u = await unattendedWorktree(w, endedBy.get(w.path), deps.snapshots);
      findings.push(u.finding);
      if (u.unsaved) unsaved.push(u.unsaved);
    }
    if (live.length > 1)
      findings.push(
        finding(
          'shared-worktree',
          `${live.length} live sessions share ${w.path} and its index: ${live.map((s) => s.id).join(', ')} (give each its own: lanes start --worktree)`,
          { worktree: w.path },
        ),
      );
  }
  for (const s of sessions) {
    if (s.worktree && !existsSync(s.worktree))
      findings.push(
        finding('missing-worktree', `session ${s.id}'s worktree ${s.worktree} is gone`, {
          session: s.id,
          worktree: s.worktree,
        }),
      );
  }
  ticketFindings(sessions, states, claims, findings);
  const landings: LandingIntent[] = [];
  for (const i of pendingIntents(repo.commonDir)) {
    const running = await landingInFlight(ctx, i);
    if (!running) landings.push(i);
    findings.push(
      finding(
        running ? 'landing' : 'interrupted-land',
        running
          ? `a land of ${i.branch.replace('refs/heads/', '')} into ${i.target} is under way (session ${i.session})`
          : describeInterrupted(i),
        i.worktree ? { worktree: i.worktree } : {},
      ),
    );
  }
  const dir = await hooksDir(repo.worktreeRoot);
  if (!hookState(dir, 'pre-commit').installed)
    findings.push(finding('guard-missing', `lanes guard is not installed in ${dir} (lanes guard install)`));

  // What killed lanes commands left (leftovers.ts); ended sessions count (a failed teardown outlives them).
  const left = await leftovers(ctx, repo.worktreeRoot, worktrees, mine);
  findings.push(...left.findings);
  const commits = pendingCommits(repo.commonDir);
  for (const i of commits)
    findings.push(finding('interrupted-commit', describeInterruptedCommit(i), { worktree: i.worktree }));

  if (options.fix) {
    for (const dir of locks) {
      const f = findings.find((x) => x.kind === 'orphaned-index-lock' && x.message.startsWith(join(dir, 'index.lock')));
      if (f) f.fixed = removeIfOrphaned(dir) ? 'removed (its taker is gone)' : 'gone meanwhile';
    }
    for (const i of commits) {
      const f = findings.find((x) => x.kind === 'interrupted-commit' && x.message === describeInterruptedCommit(i));
      try {
        const done = await finishCommit(ctx, repo.commonDir, i, 'lanes doctor --fix');
        if (f && done) f.fixed = done;
        else if (f) f.unfixable = `its process (pid ${i.owner.pid}) is still running, or another call finished it`;
      } catch (e) {
        if (f) f.unfixable = (e as Error).message;
      }
    }
    for (const i of landings) {
      const done = await finishLanding(ctx, repo.worktreeRoot, repo.commonDir, i, 'lanes doctor --fix');
      const f = findings.find((x) => x.kind === 'interrupted-land' && x.message === describeInterrupted(i));
      if (f && done?.outcome === 'stuck') f.unfixable = done.detail;
      else if (f) f.fixed = done ? done.detail : 'finished meanwhile by another lanes call';
    }
    await fix(repo.worktreeRoot, deps, findings, dead, unsaved);
    await left.fix();
    for (const f of findings.filter((x) => x.kind === 'teardown-due' && x.session)) {
      const r = await deps.teardown?.(f.session!).catch((e: Error) => ({ ok: false, why: e.message }));
      if (r?.ok) f.fixed = 'ran again';
      else
        f.unfixable = `it failed again: ${r?.why ?? 'nothing ran'} (fix the command, then lanes teardown ${f.session})`;
    }
    for (const f of findings) if (f.severity !== 'info' && !f.fixed) f.unfixable ??= whyNot(f);
  }
  return { findings, fixed: options.fix === true, open: openCount(findings) };
}

/**
 * Sessions on one ticket. One live holder of the ticket's claim with the others live beside it is
 * what `lanes start --join` makes (information); anything else is worth a look.
 */
function ticketFindings(
  sessions: SessionRecord[],
  states: Map<string, string>,
  claims: { kind: string; name: string; sessionId: string }[],
  findings: Finding[],
): void {
  const byTicket = new Map<string, SessionRecord[]>();
  for (const s of sessions) if (s.ticket) byTicket.set(s.ticket, [...(byTicket.get(s.ticket) ?? []), s]);
  for (const [ticket, group] of byTicket) {
    if (group.length < 2) continue;
    const holders = claims.filter((c) => c.kind === 'ticket' && c.name === ticket).map((c) => c.sessionId);
    const joined = group.every((s) => states.get(s.id) === 'live') && group.some((s) => holders.includes(s.id));
    const who = group.map((s) => `${s.id} (${states.get(s.id)}${holders.includes(s.id) ? ', holds the ticket' : ''})`);
    findings.push(
      finding(joined ? 'joined-ticket' : 'same-ticket', `ticket ${ticket} is worked on by ${who.join(' and ')}`),
    );
  }
}

async function fix(
  root: string,
  deps: DoctorDeps,
  findings: Finding[],
  dead: SessionRecord[],
  unsaved: Unattended[],
): Promise<void> {
  for (const s of dead) {
    // Under the session's gate: a dead session is never ended while something mutates its state.
    let result: EndResult | undefined;
    try {
      await deps.state.mutate(s.id, async () => {
        result = await deps.end(s.id, { reason: 'ended by lanes doctor --fix: owner dead' });
        return undefined;
      });
    } catch (e) {
      // Left open, claims kept: the end says what stopped it and how to end it anyway.
      const hint = (e as { hint?: unknown }).hint;
      for (const f of findings)
        if (f.session === s.id && f.severity === 'error')
          f.unfixable = `${(e as Error).message}${typeof hint === 'string' ? ` (${hint})` : ''}`;
      continue;
    }
    const note = `ended${result?.snapshot ? `, work saved as ${result.snapshot.ref}` : ''}${result?.released.length ? `, released ${result.released.map(formatResource).join(', ')}` : ''}${result?.notes.length ? ` (${result.notes.join('; ')})` : ''}`;
    for (const f of findings) if (f.session === s.id && f.severity === 'error') f.fixed ??= note;
  }
  for (const u of unsaved) {
    const r = await deps.snapshots.snapshot(u.worktree, u.owner, 'lanes doctor --fix');
    const f = findings.find((x) => x.kind === 'unsaved-worktree' && x.worktree === u.worktree);
    if (f) f.fixed = describeSnapshot(r);
  }
  if (findings.some((f) => f.kind === 'missing-worktree' && !f.session)) {
    await pruneWorktrees(root);
    for (const f of findings) if (f.kind === 'missing-worktree' && !f.session) f.fixed = 'pruned (git worktree prune)';
  }
  const guard = findings.find((f) => f.kind === 'guard-missing');
  if (guard && deps.installGuard) {
    await deps.installGuard();
    guard.fixed = 'installed (lanes guard install; an existing pre-commit hook is kept and runs first)';
  }
}

function whyNot(f: Finding): string {
  switch (f.kind) {
    case 'shared-worktree':
      return 'two live sessions chose this worktree; lanes never moves a live session (start one again with lanes start --worktree)';
    case 'same-ticket':
      return 'which session keeps the ticket is a person’s call (end one with lanes end, or start the other with --join)';
    case 'missing-worktree':
      return 'the session is not dead; its owner decides (lanes end SESSION ends it)';
    case 'guard-missing':
      return 'installing hooks needs the lanes command: run lanes guard install';
    default:
      return 'not settled by --fix';
  }
}
