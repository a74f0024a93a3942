import { homedir } from 'node:os';
import { sep } from 'node:path';
import { createPatch } from 'diff';
import { agentName } from '../../agents/index.js';
import { INSTALL_SPECS, applyChange, configFile, hookStatus } from '../../agents/install.js';
import { planChanges } from '../../agents/install-plan.js';
import { activation } from '../../agents/hooks-active.js';
import { withoutWorktreeHooks } from '../../agents/install-spec.js';
import type { ConfigChange } from '../../agents/install.js';
import { EXIT } from '../../core/errors.js';
import { AGENTS } from '../../core/hook-event.js';
import type { AgentName } from '../../core/hook-event.js';
import { findRepository, untrackedOf } from '../../index.js';
import { onPath } from '../setup/detect.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson, table } from '../output.js';
import { terminalWidth, wrap } from '../layout.js';

export const command: CommandSpec = {
  name: 'hooks',
  summary:
    "Install, remove or show lanes' hooks in the agents' configs (Claude Code, Codex, Gemini CLI, Cursor, Copilot CLI, OpenCode).",
  usage:
    'hooks install AGENT… [--user] [--dry-run] [--command CMD] [--statusline] [--no-worktree-hooks] | hooks uninstall AGENT… [--user] [--dry-run] | hooks status [--json]',
  description: [
    `AGENT: ${AGENTS.join(', ')}, or all. Project config by default (.claude/settings.json, .codex/hooks.json,`,
    '.gemini/settings.json, .cursor/hooks.json, .github/hooks/lanes.json, the OpenCode plugin',
    '.opencode/plugins/lanes.js at the repository root); --user: the same under your home',
    '(~/.copilot/hooks/lanes.json, ~/.config/opencode/plugins/lanes.js).',
    'lanes edits only its own entries: other hooks, unknown keys, comments and formatting stay byte for byte;',
    'installing twice changes nothing; uninstall removes exactly what install added. A config that is not',
    'valid JSON is reported and left alone (exit 2).',
  ].join('\n'),
  options: {
    user: { type: 'boolean', help: "the user's config (~/.claude/settings.json, …) instead of the project's" },
    'dry-run': { type: 'boolean', help: 'print the diff; write nothing' },
    statusline: {
      type: 'boolean',
      help: "with install claude-code: also set Claude Code's statusLine to `lanes statusline` (only when none is set)",
    },
    'no-worktree-hooks': {
      type: 'boolean',
      help: "with install claude-code: leave Claude Code's WorktreeCreate/WorktreeRemove out (it then makes its own worktrees)",
    },
    command: {
      type: 'string',
      arg: 'CMD',
      help: 'how agents run lanes (default: lanes), e.g. "npx lanes" or "node /path/to/dist/cli.cjs"',
    },
  },
  minPositionals: 1,
  examples: ['lanes hooks install claude-code codex', 'lanes hooks install all --user --dry-run', 'lanes hooks status'],
  async run(args, io) {
    const [action, ...names] = args.positionals;
    if (!['install', 'uninstall', 'status'].includes(action ?? ''))
      throw usageError(this, `unknown action ${JSON.stringify(action)}: use install, uninstall or status`);
    const user = args.values['user'] === true;
    const dryRun = args.values['dry-run'] === true;
    const prefix = str(args.values['command']) ?? 'lanes';
    if (action !== 'install' && args.values['command'] !== undefined)
      throw usageError(this, '--command goes with install');
    if (/[\n\r]/.test(prefix) || prefix.trim() === '') throw usageError(this, '--command must be one non-empty line');
    const agents: AgentName[] =
      action === 'status' && names.length === 0
        ? [...AGENTS]
        : names.includes('all')
          ? [...AGENTS]
          : [...new Set(names.map(agentName))];
    if (agents.length === 0) throw usageError(this, `name the agents: ${AGENTS.join(', ')} or all`);
    const projectRoot = (await findRepository(process.cwd()))?.worktreeRoot ?? null;
    const home = process.env['HOME'] || homedir();

    if (action === 'status') {
      const rows = agents.flatMap((a) => [
        ...(projectRoot
          ? [{ ...hookStatus(a, configFile(a, { projectRoot, home, user: false })), root: projectRoot }]
          : []),
        { ...hookStatus(a, configFile(a, { projectRoot, home, user: true })), root: null },
      ]);
      // For every config holding lanes' hooks: will the agent actually run them here?
      const withActive = rows.map(({ root, ...r }) => ({
        ...r,
        active:
          r.exists && !r.error && (r.events?.length ?? 0) > 0
            ? activation(r.agent, { projectRoot: root, home, env: process.env })
            : null,
      }));
      if (io.json) printJson(io.stdout, withActive);
      else {
        io.stdout(
          table(
            ['agent', 'config', 'lanes hooks', 'runs here'],
            withActive.map((r) => [
              r.agent,
              shownPath(r.file, projectRoot, home),
              r.error
                ? `invalid: ${r.error}`
                : !r.exists
                  ? 'no file'
                  : r.missing.length === 0
                    ? 'installed'
                    : r.events?.length
                      ? `partial (missing ${r.missing.join(', ')})`
                      : 'not installed',
              r.active ? { yes: 'yes', no: 'NO', unknown: 'probably (see below)' }[r.active.runs] : '',
            ]),
            // Which events are missing is what to act on: wrapped, never cut.
            { keep: ['agent', 'runs here'], shorten: { config: 'path' }, wrap: { 'lanes hooks': 3 } },
          ),
        );
        for (const r of withActive) {
          if (!r.active || r.active.runs === 'yes') continue;
          io.stdout(`\n${r.agent} (${r.file}):\n`);
          for (const f of r.active.findings) io.stdout(`  ${wrap(f, terminalWidth(), '    ')}\n`);
          for (const f of r.active.fixes) io.stdout(`  ${wrap(`fix: ${f}`, terminalWidth(), '    ')}\n`);
        }
      }
      return rows.some((r) => r.error) ? EXIT.usage : EXIT.ok;
    }

    const statusLine = args.values['statusline'] === true;
    if (args.values['no-worktree-hooks'] === true && (action !== 'install' || !agents.includes('claude-code')))
      throw usageError(this, '--no-worktree-hooks goes with install claude-code');
    if (statusLine && (action !== 'install' || !agents.includes('claude-code')))
      throw usageError(this, '--statusline goes with install claude-code (uninstall removes it with the hooks)');
    // Every file is planned (and so validated) before any is written: one bad config changes nothing.
    const changes: ConfigChange[] = planChanges(agents, {
      projectRoot,
      home,
      user,
      prefix: action === 'install' ? prefix : null,
      statusLine,
      worktreeHooks: args.values['no-worktree-hooks'] !== true,
    });
    if (!dryRun) for (const c of changes) applyChange(c);
    const notes = action === 'install' ? [...new Set(changes.flatMap((c) => c.notes))] : [];
    // Untracked project configs reach the worktrees lanes makes (it installs them there too), not
    // those of other tools (`git worktree add`, an agent's own): say so once.
    if (action === 'install' && !user && projectRoot && !dryRun) {
      const written = [...new Set(changes.filter((c) => c.changed && c.after !== null).map((c) => c.file))];
      const untracked = await untrackedOf(projectRoot, written).catch(() => []);
      if (untracked.length)
        notes.push(
          `git does not track ${untracked.map((f) => f.slice(projectRoot.length + 1)).join(', ')}: worktrees lanes makes (lanes start --worktree) get these hooks installed too, but worktrees other tools make (git worktree add, an agent's own) do not. Commit them, or install with --user.`,
        );
    }
    if (action === 'install' && prefix === 'lanes' && onPath('lanes', process.env) === null) {
      notes.push(
        '`lanes` is not on PATH here, so the agents cannot run these hooks (they would fail open). Install lanes globally (npm install -g, or npm link in its checkout), or reinstall with --command "node /path/to/lanes/dist/cli.cjs".',
      );
    }
    if (io.json) {
      printJson(io.stdout, {
        dryRun,
        changes: changes.map((c) => ({
          agent: c.agent,
          kind: c.kind,
          file: c.file,
          changed: c.changed,
          deleted: c.after === null && c.before !== null && c.changed,
          ...(dryRun ? { diff: diffOf(c) } : {}),
        })),
        notes,
      });
      return EXIT.ok;
    }
    for (const c of changes) {
      if (dryRun && c.changed) io.stdout(diffOf(c));
      const what = c.kind === 'hooks' ? 'hooks' : c.kind === 'mcp' ? 'MCP server (lanes mcp)' : 'status line';
      const verb = !c.changed
        ? action === 'install'
          ? `${what}: already there, unchanged`
          : `no lanes ${what}, unchanged`
        : action === 'install'
          ? c.kind === 'hooks'
            ? INSTALL_SPECS[c.agent].shape === 'plugin'
              ? c.before === null
                ? 'installed the lanes plugin'
                : 'updated the lanes plugin'
              : `installed ${(args.values['no-worktree-hooks'] === true ? withoutWorktreeHooks(INSTALL_SPECS[c.agent]) : INSTALL_SPECS[c.agent]).entries.length} hooks`
            : `added the ${what}`
          : c.after === null
            ? `removed the ${what} (the file held nothing else and was deleted)`
            : `removed the ${what}`;
      io.stdout(`${c.agent}: ${c.file}: ${dryRun && c.changed ? `would be changed: ${verb}` : verb}\n`);
    }
    if (dryRun) io.stdout('dry run: nothing was written\n');
    for (const n of notes) io.stdout(`note: ${n}\n`);
    return EXIT.ok;
  },
};

function diffOf(c: ConfigChange): string {
  return createPatch(
    c.file,
    c.before ?? '',
    c.after ?? '',
    c.before === null ? '(new file)' : 'before',
    c.after === null ? '(deleted)' : 'after',
  );
}

/** A config's path as a person reads it in the table: ./ under the repository, ~/ under the home. */
function shownPath(file: string, root: string | null, home: string): string {
  if (root && file.startsWith(root + sep)) return `.${file.slice(root.length)}`;
  if (home && file.startsWith(home + sep)) return `~${file.slice(home.length)}`;
  return file;
}
