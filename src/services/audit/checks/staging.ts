import { commandLines, gitArgs, simpleCommands } from '../commands.js';
import type { Step } from '../step.js';
import type { Finding } from './finding.js';

// Stage-then-pause (the first incident's second half): a procedure an agent follows that stages in
// one step and commits in a later one (between them, another session's commit takes what was
// staged, or this one's takes another's), and automation that stages or commits everything in the
// worktree (`git add -A`, `commit -a`): either sweeps up other sessions' files. The fix: `lanes
// commit -m … -- PATHS` (stage and commit the named paths in one fenced step) or a worktree per session.

const ADD_ALL = new Set(['-A', '--all', '.', '-u', '--update', ':/', '*', '--no-ignore-removal']);

interface GitStep {
  step: Step;
  verb: 'add' | 'commit';
  all: boolean;
  /** The same command line also commits (add … && commit …): one step. */
  withCommit: boolean;
  /** It makes a repository (`git init`). */
  init?: boolean;
}

function gitSteps(step: Step): GitStep[] {
  const out: GitStep[] = [];
  for (const line of commandLines(step)) {
    const cmds = simpleCommands(line).map(gitArgs);
    // A repository the same command line made (`git init && git add -A`: a deploy of dist/) is its own.
    const made = cmds.findIndex((a) => a?.[0] === 'init');
    const commits = cmds.some((a) => a?.[0] === 'commit');
    for (const [k, a] of cmds.entries()) {
      if (a?.[0] === 'init') out.push({ step, verb: 'add', all: false, withCommit: true, init: true });
      if (!a || (made >= 0 && k > made)) continue;
      if (a[0] === 'add')
        out.push({ step, verb: 'add', all: a.slice(1).some((w) => ADD_ALL.has(w)), withCommit: commits });
      if (a[0] === 'commit') {
        const all = a.slice(1).some((w) => w === '--all' || /^-[a-zA-Z]*a[a-zA-Z]*$/.test(w));
        out.push({ step, verb: 'commit', all, withCommit: true });
      }
    }
  }
  return out;
}

export function stageThenPause(steps: Step[]): Finding[] {
  const out: Finding[] = [];
  const byFile = new Map<string, GitStep[]>();
  for (const s of steps)
    for (const g of gitSteps(s)) (byFile.get(s.file) ?? byFile.set(s.file, []).get(s.file)!).push(g);
  for (const [, gits] of byFile) {
    for (const g of gits) {
      const where = { file: g.step.file, line: g.step.line };
      // After a `git init` of its own in the same scope (`cd dist && git init`), the repository is the script's.
      const own = gits.some((o) => o.init && o.step.scope === g.step.scope && o.step.line < g.step.line);
      if (g.all && own) continue;
      if (g.all) {
        out.push({
          check: 'stage-then-pause',
          ...where,
          what: `${g.verb === 'add' ? 'git add' : 'git commit'} of everything in the worktree`,
        });
        continue;
      }
      // A procedure's add whose commit comes in a later step.
      if (g.verb !== 'add' || !g.step.procedure || g.withCommit) continue;
      const later = gits.some((c) => c.verb === 'commit' && c.step.scope !== g.step.scope && c.step.line > g.step.line);
      if (later) out.push({ check: 'stage-then-pause', ...where, what: 'git add here, git commit in a later step' });
    }
  }
  return out;
}
