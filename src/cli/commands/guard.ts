import { EXIT, LanesError } from '../../core/errors.js';
import { hookLanesCommand } from '../lanes-command.js';
import type { CommandSpec } from '../command.js';
import { usageError } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'guard',
  summary: 'Install git hooks that stop a plain `git commit` from taking paths another live session claimed.',
  usage: 'guard install [--protect BRANCH]… | guard uninstall | guard status  [--json]',
  description: [
    'pre-commit refuses a commit whose staged paths are claimed by another live session, and one made in a',
    'worktree another live session of this host works in when a staged path is not claimed by the committer',
    "(the acting session, or you without one): a shared index may hold the other session's staged files.",
    'The commit is not made and the index is left as it was; the refusal is journaled. To commit',
    'everything staged anyway, once: LANES_ALLOW_SHARED_INDEX=1 git commit … (journaled too). With --protect,',
    'a reference-transaction hook refuses any update of those branches that does not come from lanes land.',
    'Hooks go where git looks for them (core.hooksPath is honoured); an existing hook is kept and run first.',
  ].join('\n'),
  options: {
    protect: { type: 'string', multiple: true, arg: 'BRANCH', help: 'with install: only lanes land may move BRANCH' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  async run(args, io) {
    const action = args.positionals[0];
    if (!['install', 'uninstall', 'status', 'check-commit'].includes(action ?? ''))
      throw usageError(this, `unknown action ${JSON.stringify(action)}: use install, uninstall or status`);
    const protect = (args.values['protect'] as string[] | undefined) ?? [];
    if (protect.length && action !== 'install') throw usageError(this, '--protect goes with install');
    const lanes = await io.lanes();
    const guard = lanes.guard;
    if (action === 'check-commit') {
      const r = await guard.checkCommit();
      if (r.overridden)
        io.stderr(
          `lanes guard: LANES_ALLOW_SHARED_INDEX=1: committing ${r.notMine.length} staged path(s) not claimed by this committer from an index shared with ${r.sharers.map((s) => s.id).join(', ')} (journaled)\n`,
        );
      if (!r.refusal) return EXIT.ok;
      throw new LanesError(r.refusal.code, `lanes guard: refusing this commit: ${r.refusal.reason}`, {
        hint: r.refusal.hint,
      });
    }
    const cli = hookLanesCommand();
    const status =
      action === 'install'
        ? await guard.install({ protect, lanesCommand: cli })
        : action === 'uninstall'
          ? await guard.uninstall()
          : await guard.status();
    if (io.json) printJson(io.stdout, status);
    else {
      io.stdout(`hooks directory: ${status.hooksDir}\n`);
      for (const h of status.hooks)
        io.stdout(
          `  ${h.name}: ${h.installed ? 'installed' : 'not installed'}${h.chained ? ' (runs the previous hook first)' : ''}\n`,
        );
    }
    return action === 'status' && !status.hooks.some((h) => h.installed) ? EXIT.error : EXIT.ok;
  },
};
