import { git } from './run.js';

// Facts about many commits read in one git process each, where the sweep used to run one per
// worktree: each git started from lanes forks the whole Node process, and the sweep's main thread
// waits for every fork (most of its time at 64 worktrees; bench/RESULTS.md).

/** Tree and committer time (ms) of each commit, in one `git log --no-walk`. */
export async function commitFacts(
  cwd: string,
  commits: string[],
): Promise<Map<string, { tree: string; time: number }>> {
  const facts = new Map<string, { tree: string; time: number }>();
  const unique = [...new Set(commits)];
  if (unique.length === 0) return facts;
  const out = await git(['log', '--no-walk=unsorted', '--stdin', '--format=%H %T %ct'], {
    cwd,
    input: unique.join('\n') + '\n',
  });
  for (const line of out.split('\n')) {
    const [commit, tree, ct] = line.split(' ');
    if (commit && tree && ct) facts.set(commit, { tree, time: Number(ct) * 1000 });
  }
  return facts;
}

/**
 * For each tip, how many of its commits `base` does not have: `git rev-list --count base..tip`
 * for all tips from one walk. The walk lists every commit of any tip that base lacks, with its
 * parents; a tip's count is what it reaches among them (a commit base has cuts the path: all its
 * ancestors are base's too). A tip base already has counts 0.
 */
export async function commitsAheadOf(cwd: string, base: string, tips: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const unique = [...new Set(tips)];
  if (unique.length === 0) return counts;
  const out = await git(['rev-list', '--parents', '--stdin'], {
    cwd,
    input: `^${base}\n${unique.join('\n')}\n`,
  });
  const parents = new Map<string, string[]>();
  for (const line of out.split('\n')) {
    const [commit, ...ps] = line.split(' ');
    if (commit) parents.set(commit, ps);
  }
  for (const tip of unique) {
    let n = 0;
    const seen = new Set<string>();
    const stack = parents.has(tip) ? [tip] : [];
    while (stack.length > 0) {
      const c = stack.pop()!;
      if (seen.has(c)) continue;
      seen.add(c);
      n++;
      for (const p of parents.get(c) ?? []) if (parents.has(p) && !seen.has(p)) stack.push(p);
    }
    counts.set(tip, n);
  }
  return counts;
}
