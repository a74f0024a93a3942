import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runtimeRoot } from '../../core/paths.js';
import { git } from '../../git/run.js';
import { branchMerged, defaultBranch } from '../../git/worktree.js';
import { unlockWorktree } from '../../git/worktree-lock.js';
import type { WorktreeEntry } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { staleLanesLock } from '../worktrees/worktree-facts.js';
import { finding } from './findings.js';
import type { Finding } from './findings.js';

// What a killed lanes command can leave (issue 45, item 6), named by `lanes doctor` and settled
// by --fix without losing work: a lanes/<slug> branch no worktree and no open session has (merged:
// deleted; unmerged: kept, named, never deleted); lanes new's environment hand-over directory
// (a socket, no secret: removed once no start uses it); a worktree lock a killed removal left
// (unlocked: the removal did not happen); a [session] teardown killed while it ran or failed.

/** A hand-over directory younger than this may belong to a start still under way. */
const HANDOFF_GRACE_MS = 60_000;

export interface Leftovers {
  findings: Finding[];
  fix(): Promise<void>;
}

export async function leftovers(
  ctx: LanesContext,
  root: string,
  worktrees: WorktreeEntry[],
  sessions: SessionRecord[],
): Promise<Leftovers> {
  const findings: Finding[] = [];
  const fixes: (() => Promise<void>)[] = [];
  const main = await defaultBranch(root);
  const checkedOut = new Set(worktrees.map((w) => w.branch).filter(Boolean));
  const slugs = new Set(sessions.filter((s) => s.endedAt === null && s.worktree).map((s) => basename(s.worktree!)));
  const branches = (await git(['for-each-ref', '--format=%(refname)', 'refs/heads/lanes/'], { cwd: root }))
    .split('\n')
    .filter(Boolean);
  for (const ref of branches) {
    const name = ref.slice('refs/heads/'.length);
    if (checkedOut.has(ref) || slugs.has(name.slice('lanes/'.length))) continue;
    const merged = main ? await branchMerged(root, name, main).catch(() => false) : false;
    const f = finding(
      merged ? 'merged-branch' : 'kept-branch',
      merged
        ? `branch ${name} is merged into ${main} and no worktree or session has it (a removal killed before deleting it)`
        : `branch ${name} holds work no worktree or open session has (kept: lanes land --ticket lands it, lanes new --resume goes on with it)`,
    );
    findings.push(f);
    if (merged)
      fixes.push(async () => {
        await git(['branch', '-d', '--', name], { cwd: root });
        f.fixed = 'deleted (it was merged)';
      });
  }
  const handoffs = runtimeRoot(ctx.env);
  for (const e of safeList(handoffs)) {
    if (!e.startsWith('new-env-')) continue;
    const dir = join(handoffs, e);
    if (Date.now() - statSync(dir).mtimeMs < HANDOFF_GRACE_MS) continue;
    const f = finding(
      'handoff-dir',
      `${dir} is lanes new's hand-over of an environment to a start that was killed (a socket; no secret is in it)`,
    );
    findings.push(f);
    fixes.push(async () => {
      rmSync(dir, { recursive: true, force: true });
      f.fixed = 'removed';
    });
  }
  for (const w of worktrees) {
    if (!w.locked || !staleLanesLock(w.lockReason, ctx.host)) continue;
    const f = finding(
      'stale-worktree-lock',
      `${w.path} is locked by a lanes removal that was killed (${w.lockReason})`,
      {
        worktree: w.path,
      },
    );
    findings.push(f);
    fixes.push(async () => {
      await unlockWorktree(root, w.path);
      f.fixed = 'unlocked (the removal did not happen; lanes gc --worktrees may remove it again)';
    });
  }
  for (const s of sessions)
    if (s.setupState === 'tearing' || s.setupState === 'failed')
      findings.push(
        finding(
          'teardown-due',
          `the [session] teardown of ${s.id}${s.label ? ` (${s.label})` : ''} ${s.setupState === 'failed' ? 'failed' : 'was killed while it ran'}: what its setup made is still there (lanes teardown ${s.id})`,
          { session: s.id },
        ),
      );
  return {
    findings,
    async fix() {
      for (const f of fixes) await f().catch(() => undefined);
    },
  };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
