import { LanesError } from '../../core/errors.js';
import { hookState, hooksDir, installHook, uninstallHook, GUARD_MARKER } from '../../git/hooks.js';
import type { HookState } from '../../git/hooks.js';
import type { ClaimService } from '../claims/claims.js';
import { checkCommit, SHARED_INDEX_OVERRIDE } from './commit-check.js';
import type { CommitCheck } from './commit-check.js';
import type { LanesContext } from '../context.js';

/** The pre-commit hook: run a chained original first, then ask lanes about the staged paths. */
function preCommit(lanesCmd: string): string {
  return `#!/bin/sh
${GUARD_MARKER} pre-commit (installed by \`lanes guard install\`; remove with \`lanes guard uninstall\`)
chained="$(dirname "$0")/pre-commit.lanes-chained"
if [ -x "$chained" ]; then "$chained" "$@" || exit $?; fi
exec ${lanesCmd} guard check-commit
`;
}

/** reference-transaction: refuse moving protected branches unless `lanes land` is the one moving them. */
function referenceTransaction(protect: string[]): string {
  const cases = protect.map((b) => `refs/heads/${b}`).join('|');
  return `#!/bin/sh
${GUARD_MARKER} reference-transaction (protects: ${protect.join(', ')})
input=$(cat)
chained="$(dirname "$0")/reference-transaction.lanes-chained"
if [ -x "$chained" ]; then printf '%s\\n' "$input" | "$chained" "$@" || exit $?; fi
[ "$1" = prepared ] || exit 0
[ -n "$LANES_LANDING" ] && exit 0
printf '%s\\n' "$input" | while read -r old new ref; do
  case "$ref" in ${cases}) echo "lanes guard: $ref is protected: publish to it with \\\`lanes land\\\` (see lanes land --help)" >&2; exit 1 ;; esac
done
`;
}

export interface GuardStatus {
  hooksDir: string;
  hooks: HookState[];
}

export class GuardService {
  constructor(
    private readonly ctx: LanesContext,
    private readonly claims: ClaimService,
  ) {}

  private async dir(): Promise<string> {
    const repo = await this.ctx.repo();
    if (!repo)
      throw new LanesError('E_USAGE', `${this.ctx.cwd} is not inside a git repository`, {
        hint: 'run lanes guard inside the repository',
      });
    return hooksDir(repo.worktreeRoot);
  }

  async install(options: { protect?: string[]; lanesCommand: string }): Promise<GuardStatus> {
    const dir = await this.dir();
    installHook(dir, 'pre-commit', preCommit(options.lanesCommand));
    if (options.protect?.length) {
      for (const b of options.protect) {
        if (!/^[A-Za-z0-9._/-]+$/.test(b))
          throw new LanesError('E_USAGE', `--protect ${JSON.stringify(b)} is not a plain branch name`);
      }
      installHook(dir, 'reference-transaction', referenceTransaction(options.protect));
    }
    return this.status();
  }

  async uninstall(): Promise<GuardStatus> {
    const dir = await this.dir();
    uninstallHook(dir, 'pre-commit');
    uninstallHook(dir, 'reference-transaction');
    return this.status();
  }

  async status(): Promise<GuardStatus> {
    const dir = await this.dir();
    return { hooksDir: dir, hooks: ['pre-commit', 'reference-transaction'].map((n) => hookState(dir, n)) };
  }

  /**
   * The pre-commit decision (commit-check.ts), journaled when it refuses or is overridden: a
   * refused commit is a decision the morning's reader must see, as is the one waved through.
   */
  async checkCommit(): Promise<CommitCheck> {
    const check = await checkCommit(this.ctx, this.claims);
    if (check.refusal === null && !check.overridden) return check;
    const repo = await this.ctx.repo();
    const session = this.ctx.sessionId ? await this.ctx.store.getSession(this.ctx.sessionId) : null;
    await this.ctx.journal.record({
      kind: check.refusal === null ? 'guard.override' : 'guard.refuse',
      subject: repo?.worktreeRoot ?? this.ctx.cwd,
      session: this.ctx.sessionId,
      repo: repo ? this.ctx.repoId(repo) : null,
      ticket: session?.ticket ?? null,
      details: {
        claimed: check.claimed,
        sharedWith: check.sharers.map((s) => s.id),
        notClaimed: check.notMine.slice(0, 100),
        notClaimedCount: check.notMine.length,
        ...(check.overridden ? { override: SHARED_INDEX_OVERRIDE } : {}),
      },
    });
    return check;
  }
}
