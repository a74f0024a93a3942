import { resolve } from 'node:path';
import { ALLOW } from '../../core/hook-event.js';
import { ignoresCase } from '../../git/ignore-case.js';
import { foldPath } from '../../core/resource.js';
import type { HookDecision } from '../../core/hook-event.js';
import { parseResource, resourcesConflict } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import { riskyGitCommands } from '../../core/shell-git.js';
import { repoInfo } from '../../git/repo.js';
import { locateInRepo } from '../../git/repo-path.js';
import type { RepoPath } from '../../git/repo-path.js';
import type { ClaimRecord, SessionRecord } from '../../store/types.js';
import { touchedKey } from '../../store/touched-types.js';
import type { HookContext } from './context.js';
import { checkOutsideEdit, expandHome, outsideWarning } from './file-check.js';
import { FINISH_HINT, interruptedIn } from '../commits/interrupted.js';

// The two checks that run before a tool call. They read the store only (no git process): claims,
// live sessions, and the paths other sessions' agents recorded as edited (post-edit hooks).

function who(s: SessionRecord | undefined, id: string): string {
  if (!s) return `session ${id}`;
  return `session ${s.id}${s.ticket ? ` (ticket ${s.ticket})` : ''}${s.agent ? `, ${s.agent}` : ''}, pid ${s.owner.pid} on ${s.owner.host}`;
}

async function liveOthers(ctx: HookContext, self: string): Promise<Map<string, SessionRecord>> {
  return new Map((await ctx.liveSessions((s) => s.id !== self)).map((s) => [s.id, s]));
}

export async function checkEdit(ctx: HookContext, self: string, paths: string[]): Promise<HookDecision> {
  const cache = new Map();
  const targets: RepoPath[] = [];
  const outside: string[] = [];
  for (const p of paths) {
    const at = await locateInRepo(p, cache);
    if (at) targets.push(at);
    else outside.push(resolve(p));
  }
  // Files of the machine outside every repository: `file:` claims and the shared list (file-check.ts).
  if (outside.length > 0) {
    const others = await liveOthers(ctx, self);
    const session = await ctx.findSession(self);
    const config = await ctx.config(session?.worktree ?? session?.cwd ?? resolve('.'));
    const shared = config.shared.files.map((f) => expandHome(f));
    const denied = await checkOutsideEdit(ctx, self, outside, others, shared);
    if (denied) return denied;
    if (targets.length === 0) return outsideWarning(ctx, outside, others);
  }
  if (targets.length === 0) return ALLOW;
  const refs = targets.map((target) => {
    try {
      return parseResource(`path:${target.rel}`, {
        cwd: target.repo.worktreeRoot,
        worktreeRoot: target.repo.worktreeRoot,
        repoId: ctx.repoId(target.repo),
        host: ctx.host,
        ignoreCase: ignoresCase(target.repo.commonDir),
      });
    } catch {
      return null;
    }
  });
  // Only the claims on these paths, the directories above them and the paths below (an index
  // read), and only the sessions not yet proven dead: flat in everything the store has seen.
  const wanted = refs.filter((r): r is ResourceRef => r !== null);
  const claims = wanted.length
    ? (await ctx.conflictingClaims(wanted)).filter((c) => c.kind === 'path' && c.sessionId !== self)
    : [];
  // Only the holders of those claims are judged: flat in the number of live sessions too.
  const others = new Map(
    (await ctx.liveAmong([...new Set(claims.map((c) => c.sessionId))])).map((s) => [s.id, s] as const),
  );
  const blocked: { target: RepoPath; claim: ClaimRecord }[] = [];
  targets.forEach((target, i) => {
    const ref = refs[i];
    const claim = ref && claims.find((c) => others.has(c.sessionId) && resourcesConflict(ref, c));
    if (claim) blocked.push({ target, claim });
  });
  if (blocked.length > 0) {
    const lines = blocked.map(
      ({ target, claim }) =>
        `${target.rel} is claimed by ${who(others.get(claim.sessionId), claim.sessionId)} (claim path:${claim.name}).`,
    );
    const holder = blocked[0]?.claim;
    return {
      permission: 'deny',
      reason:
        `lanes: ${lines.join(' ')} Do not edit it. Coordinate instead: work on paths nobody claimed, ask the person running that session, ` +
        `or wait for the claim: \`lanes claim path:${holder?.name ?? ''} --wait\` (then edit). \`lanes claims\` lists who holds what.`,
      context: null,
      notice: `denied edit of ${blocked.map((b) => b.target.rel).join(', ')}: claimed by ${holder?.sessionId ?? '?'}`,
      holders: [...new Set(blocked.map((b) => b.claim.sessionId))],
      lifts: [...new Set(blocked.map((b) => `path:${b.claim.name}`))],
    };
  }
  return earlyWarning(ctx, self, targets, others);
}

/**
 * Early conflict warning: another live session of the same repository changed these paths and
 * has not landed them. Asked before an edit (agents that show a pre-tool context to the model)
 * and after it (Gemini: only its after-tool context reaches the model).
 */
export async function warnEdit(ctx: HookContext, self: string, paths: string[]): Promise<HookDecision> {
  const cache = new Map();
  const targets: RepoPath[] = [];
  const outside: string[] = [];
  for (const p of paths) {
    const at = await locateInRepo(p, cache);
    if (at) targets.push(at);
    else outside.push(resolve(p));
  }
  if (targets.length === 0)
    return outside.length === 0 ? ALLOW : outsideWarning(ctx, outside, await liveOthers(ctx, self));
  return earlyWarning(ctx, self, targets, new Map());
}

async function earlyWarning(
  ctx: HookContext,
  self: string,
  targets: RepoPath[],
  known: Map<string, SessionRecord>,
): Promise<HookDecision> {
  const warnings: string[] = [];
  const holders: string[] = [];
  // The rows of these paths in the index (touched-types.ts), per repository: only the sessions that
  // touched them are read and judged, never every live session's whole list.
  const byRepo = new Map<string, RepoPath[]>();
  for (const t of targets) byRepo.set(ctx.repoId(t.repo), [...(byRepo.get(ctx.repoId(t.repo)) ?? []), t]);
  const hits: { repo: string; sessionId: string; path: string }[] = [];
  for (const [repo, mine] of byRepo)
    for (const h of await ctx.touchedAt(repo, [...new Set(mine.map((t) => touchedKey(t.rel)))]))
      if (h.sessionId !== self) hits.push({ repo, ...h });
  const unknown = [...new Set(hits.map((h) => h.sessionId))].filter((id) => !known.has(id));
  const live = new Map(known);
  for (const s of await ctx.liveAmong(unknown)) live.set(s.id, s);
  for (const s of live.values()) {
    const theirs = hits.filter((h) => h.sessionId === s.id && h.repo === s.repo);
    if (theirs.length === 0) continue;
    const mine = byRepo.get(s.repo ?? '') ?? [];
    // On a case-insensitive file system `src/Cart.ts` and `src/cart.ts` are one file.
    const fold = mine.some((m) => ignoresCase(m.repo.commonDir));
    const key = (rel: string) => (fold ? foldPath(rel) : rel.normalize('NFC'));
    const touched = new Set(theirs.map((h) => key(h.path)));
    const found = mine.filter((t) => touched.has(key(t.rel))).map((t) => t.rel);
    if (found.length > 0) {
      warnings.push(`${found.join(', ')} also changed by ${who(s, s.id)} in ${s.worktree ?? s.cwd}, not landed yet`);
      holders.push(s.id);
    }
  }
  if (warnings.length === 0) return ALLOW;
  return {
    ...ALLOW,
    context: `lanes early conflict warning: ${warnings.join('; ')}. Editing the same lines will conflict when both land; coordinate with that session (\`lanes conflicts\` shows the overlap), or claim the path first (\`lanes claim path:…\`).`,
    notice: `warning: ${warnings.join('; ')}`,
    holders,
  };
}

const ALTERNATIVE: Record<string, string> = {
  add: 'commit exactly your files with `lanes commit -m "MESSAGE" -- PATH…` (it never touches the shared index)',
  commit: 'commit exactly your files with `lanes commit -m "MESSAGE" -- PATH…` (it never touches the shared index)',
  stash: 'save your work with `lanes snapshot` (a private ref; files and index untouched)',
  reset: 'leave the shared index alone; `lanes commit -m "MESSAGE" -- PATH…` commits only your paths',
  checkout:
    'restore only files you changed yourself, after checking `lanes conflicts`; `lanes snapshot` first saves everything',
  restore:
    'restore only files you changed yourself, after checking `lanes conflicts`; `lanes snapshot` first saves everything',
};

export async function checkShell(ctx: HookContext, self: string, cwd: string, command: string): Promise<HookDecision> {
  const risky = riskyGitCommands(command);
  if (risky.length === 0) return ALLOW;
  let others: Map<string, SessionRecord> | null = null;
  for (const r of risky) {
    const dir = resolve(cwd, r.dir ?? '.');
    const repo = await repoInfo(dir);
    if (!repo) continue;
    const interrupted = interruptedIn(repo.commonDir, repo.worktreeRoot);
    if (interrupted)
      return {
        permission: 'deny',
        reason: `lanes: \`git ${r.verb}\` refused: ${interrupted}. To finish it, ${FINISH_HINT}.`,
        context: null,
        holders: [],
        notice: `denied \`git ${r.verb}\` in ${repo.worktreeRoot}: an interrupted land or commit`,
      };
    others ??= await liveOthers(ctx, self);
    // A worktree is a directory of one machine: only sessions of this host can share it.
    const sharing = [...others.values()].filter(
      (s) => s.owner.host === ctx.host && s.repo === ctx.repoId(repo) && s.worktree === repo.worktreeRoot,
    );
    if (sharing.length === 0) continue;
    const names = sharing.map((s) => who(s, s.id)).join('; ');
    return {
      permission: 'deny',
      reason:
        `lanes: \`git ${r.verb}\` would change the shared state of worktree ${repo.worktreeRoot}, which ${names} also works in: ` +
        `it could sweep up, commit or discard that session's staged or unsaved work. Instead, ${ALTERNATIVE[r.verb] ?? ALTERNATIVE['commit']}; ` +
        'or move to a worktree of your own with `lanes start --worktree`.',
      context: null,
      holders: sharing.map((s) => s.id),
      notice: `denied \`git ${r.verb}\` in ${repo.worktreeRoot}: shared with ${sharing.map((s) => s.id).join(', ')}`,
    };
  }
  return ALLOW;
}
