import { EXIT } from '../../core/errors.js';
import { auditRepository } from '../../index.js';
import { renderAudit } from '../audit-text.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'audit',
  summary: "Find the bug class lanes prevents in a repository's own automation and its agents' instructions.",
  usage: 'audit [PATH] [--markdown] [--json]',
  description: [
    'Reads the repository at PATH (default: here) — shell, Python and JavaScript/TypeScript scripts, Makefiles,',
    "package.json scripts, CI workflows, git hooks, and the agents' instruction files and skills (CLAUDE.md,",
    'AGENTS.md, GEMINI.md, .claude/skills and commands, .cursor/rules, .github/copilot-*, .opencode) — and checks',
    'for what breaks when several sessions run at once: fixed-path handoffs, stage-then-pause procedures,',
    "clears that skip the writers' lock, save-everything sweeps, hard-coded ports, a shared dev database, shared",
    'build caches, and writes to global config or credentials. Each check PASS or FAIL with file:line evidence',
    'and the lanes command or config that replaces the pattern, then a table and a verdict (applies / partially',
    '/ out of scope / no) with the one next action. In a git repository it reads what git tracks and would track',
    '(never an ignored file). Exit 0: no findings; 3: findings; 2: PATH cannot be read.',
  ].join('\n'),
  options: {
    markdown: { type: 'boolean', help: 'Markdown, for pasting into a ticket or a pull request' },
  },
  maxPositionals: 1,
  examples: ['lanes audit', 'lanes audit ~/src/harness --markdown > audit.md', 'lanes audit --json | jq .findings'],
  async run(args, io) {
    const report = auditRepository(args.positionals[0] ?? '.');
    if (io.json) printJson(io.stdout, report);
    else io.stdout(renderAudit(report, args.values['markdown'] === true));
    return report.findings.length ? EXIT.held : EXIT.ok;
  },
};
