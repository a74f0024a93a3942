import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { sep } from 'node:path';
import { agentName } from '../../agents/index.js';
import { EXIT, LanesError } from '../../core/errors.js';
import type { AgentName } from '../../core/hook-event.js';
import { findRepository, shellWord, untrackedOf } from '../../index.js';
import type { RepoInfo } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { hookLanesCommand } from '../lanes-command.js';
import { printJson } from '../output.js';
import { findAgents } from '../setup/detect.js';
import { applySetup, pending, planSetup } from '../setup/plan.js';
import type { SetupPlan } from '../setup/plan.js';
import { adviceText, commitAdvice, planText } from '../setup/text.js';
import { undoSetup } from '../setup/undo-run.js';
import { confirm } from '../setup/confirm.js';

export const command: CommandSpec = {
  name: 'setup',
  summary: "Set up this repository for lanes: the agents' hooks, the guard's git hook and a commented lanes.toml.",
  usage:
    'setup [--agent NAME]… [--user] [--command CMD] [--dry-run] [--yes] [--json] | setup --undo [--keep-edited] [--dry-run] [--yes] [--json]',
  description: [
    "Finds the agents installed here (claude, codex, gemini, cursor-agent, copilot, opencode on PATH, or their config directories ~/.claude, ~/.codex, ~/.gemini, ~/.cursor, ~/.copilot, ~/.config/opencode), shows what it will write and asks (y/N; without a terminal it needs --yes, else exit 2). It then writes each agent's hooks and MCP entry as `lanes hooks install` does (in the repository; --user: in your home), the git pre-commit hook as `lanes guard install` does, and a commented lanes.toml where there is none (an existing one is never touched), and says what to commit. A second run finds everything in place and writes nothing. A lanes.toml's commands run only after `lanes allow`.",
    '',
    "--undo puts back every file setup changed, byte for byte (what each was is kept in $LANES_HOME/setup). A file changed since setup is named and nothing is undone (exit 3), unless --keep-edited: the other files are restored and only lanes' own entries leave the changed ones (a changed lanes.toml stays as it is). Answering no changes nothing (exit 5).",
  ].join('\n'),
  options: {
    agent: { type: 'string', multiple: true, arg: 'NAME', help: 'only this agent, found here or not (repeatable)' },
    user: { type: 'boolean', help: "the agents' hooks in your user config (~/.claude/settings.json, …)" },
    command: { type: 'string', arg: 'CMD', help: 'how agents run lanes (default: lanes), as in lanes hooks install' },
    'dry-run': { type: 'boolean', help: 'show what it would write (or undo); write nothing' },
    yes: { type: 'boolean', short: 'y', help: 'write without asking (needed when stdin is not a terminal)' },
    undo: { type: 'boolean', help: 'put back every file lanes setup changed in this repository' },
    'keep-edited': {
      type: 'boolean',
      help: "with --undo: restore the rest, take only lanes' entries out of files changed since",
    },
  },
  maxPositionals: 0,
  examples: [
    'lanes setup',
    'lanes setup --dry-run',
    'lanes setup --agent claude-code --agent codex --yes',
    'lanes setup --undo',
  ],
  async run(args, io) {
    const v = args.values;
    const undo = v['undo'] === true;
    if (v['keep-edited'] === true && !undo) throw usageError(this, '--keep-edited goes with --undo');
    if (undo && (v['agent'] !== undefined || v['user'] === true || v['command'] !== undefined))
      throw usageError(this, '--undo puts back what setup wrote: it takes no --agent, --user or --command');
    const prefix = str(v['command']) ?? 'lanes';
    if (/[\n\r]/.test(prefix) || prefix.trim() === '') throw usageError(this, '--command must be one non-empty line');
    const repo = await findRepository(process.cwd());
    if (!repo)
      throw new LanesError('E_USAGE', `lanes setup: ${process.cwd()} is not inside a git repository`, {
        hint: 'run lanes setup in the repository to set up',
      });
    const home = process.env['HOME'] || homedir();
    const flags = { dryRun: v['dry-run'] === true, yes: v['yes'] === true };
    const lanes = await io.lanes();
    if (undo)
      return undoSetup(this, io, {
        ...flags,
        root: repo.worktreeRoot,
        home,
        repository: real(repo),
        lanes,
        keepEdited: v['keep-edited'] === true,
        again: againWithYes(process.argv),
      });
    const names = (v['agent'] as string[] | undefined) ?? [];
    const found = findAgents(home, process.env);
    const agents: AgentName[] = names.length
      ? [...new Set(names.map(agentName))]
      : found.filter((a) => a.found).map((a) => a.agent);
    const status = await lanes.guard.status();
    const guard = status.hooks.find((h) => h.name === 'pre-commit')!;
    const plan = planSetup({
      root: repo.worktreeRoot,
      repository: real(repo),
      home,
      user: v['user'] === true,
      prefix,
      found,
      agents,
      guard,
    });
    const todo = pending(plan);
    if (!io.json) io.stdout(planText(plan, home, names.length > 0));
    const report = async (written: boolean) => {
      const advice = commitAdvice(plan, await toCommit(plan, written), home);
      if (io.json)
        printJson(io.stdout, {
          root: plan.root,
          repository: plan.repository,
          scope: plan.user ? 'user' : 'project',
          dryRun: flags.dryRun,
          agents: found.map((a) => ({ ...a, selected: agents.includes(a.agent) })),
          items: plan.items,
          written,
          ...advice,
          notes: plan.notes,
        });
      return advice;
    };
    if (todo.length === 0) {
      const advice = await report(false);
      if (!io.json) io.stdout(`\nEverything is in place: nothing was written.\n${adviceText(advice)}`);
      return EXIT.ok;
    }
    if (flags.dryRun) {
      await report(false);
      if (!io.json) io.stdout('\ndry run: nothing was written\n');
      return EXIT.ok;
    }
    await confirm(
      this,
      flags.yes,
      `Write ${todo.length} file${todo.length === 1 ? '' : 's'}?`,
      againWithYes(process.argv),
    );
    await applySetup(plan, () => lanes.guard.install({ lanesCommand: hookLanesCommand() }));
    const advice = await report(true);
    if (!io.json) io.stdout(`\nWrote ${todo.length} file${todo.length === 1 ? '' : 's'}.\n${adviceText(advice)}`);
    return EXIT.ok;
  },
};

/** This command line with --yes added, as the refusal to ask without a terminal says it. */
export function againWithYes(argv: string[]): string {
  const i = argv.indexOf('setup');
  return ['lanes', ...(i < 0 ? ['setup'] : argv.slice(i).map(shellWord)), '--yes'].join(' ');
}

/** The git common directory as the approvals of lanes.toml name the repository: its real path. */
function real(repo: RepoInfo): string {
  try {
    return realpathSync(repo.commonDir);
  } catch {
    return repo.commonDir;
  }
}

/** The repository's files of the plan to commit: those written now, and any git does not track yet. */
async function toCommit(p: SetupPlan, written: boolean): Promise<string[]> {
  const mine = p.items.filter(
    (i) => !i.holds.includes('guard') && i.file.startsWith(p.root + sep) && existsSync(i.file),
  );
  const files = [...new Set(mine.map((i) => i.file))];
  const untracked = new Set(await untrackedOf(p.root, files).catch(() => files));
  const now = new Set(mine.filter((i) => written && (i.state === 'new' || i.state === 'change')).map((i) => i.file));
  return files.filter((f) => now.has(f) || untracked.has(f));
}
