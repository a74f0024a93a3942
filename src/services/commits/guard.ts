import { LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import { hookState, hooksDir, installHook, uninstallHook, GUARD_MARKER } from '../../git/hooks.js';
import type { HookState } from '../../git/hooks.js';
import { git } from '../../git/run.js';
import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';

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
   * The pre-commit check: staged paths claimed by another live session block the commit; another
   * live session registered in this same worktree is warned about (a shared index).
   */
  async checkCommit(): Promise<{ blocked: string[]; warnings: string[] }> {
    const repo = await this.ctx.repo();
    if (!repo) return { blocked: [], warnings: [] };
    const staged = (await git(['diff', '--cached', '--name-only', '-z', '--no-renames'], { cwd: repo.worktreeRoot }))
      .split('\0')
      .filter(Boolean);
    const blocked: string[] = [];
    if (staged.length > 0) {
      const rootCtxPaths = staged.map((p) => `${repo.worktreeRoot}/${p}`);
      for (const h of await this.claims.othersHoldingPaths(rootCtxPaths)) {
        blocked.push(`${formatResource(h.claim)} is claimed by ${describeSession(h.session, h.claim.sessionId)}`);
      }
    }
    const warnings: string[] = [];
    // A worktree is a directory of one machine: a team store's sessions on other hosts never share it.
    for (const s of await this.ctx.liveSessions(
      (x) => x.worktree === repo.worktreeRoot && x.owner.host === this.ctx.host && x.id !== this.ctx.sessionId,
    )) {
      warnings.push(
        `${describeSession(s)} is also working in this worktree and shares its index: what you staged may be swept into its commit, and the other way round`,
      );
    }
    return { blocked, warnings };
  }
}
