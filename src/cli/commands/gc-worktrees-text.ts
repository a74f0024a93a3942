import { relative } from 'node:path';
import prettyBytes from 'pretty-bytes';
import { formatAge } from '../../core/duration.js';
import type { WorktreeGcItem, WorktreeGcReport } from '../../index.js';
import { terminalWidth, wrap } from '../layout.js';
import { Table, pc } from '../output.js';

const OUTCOME: Record<WorktreeGcItem['outcome'], string> = {
  removed: pc.green('removed'),
  'would-remove': pc.yellow('would remove'),
  reclaimed: pc.green('reclaimed'),
  'would-reclaim': pc.yellow('would reclaim'),
  kept: 'kept',
  failed: pc.red('failed'),
};

const size = (n: number | null): string => (n === null ? '?' : prettyBytes(n));

function note(i: WorktreeGcItem): string {
  const bits: string[] = [];
  if (i.why) bits.push(i.why);
  if (i.snapshot) bits.push(`work saved in ${i.snapshot}`);
  if (i.branchDeleted) bits.push(`branch deleted (merged)`);
  if (i.reclaimed.length) bits.push(`${i.reclaimed.length} rebuildable dir(s)`);
  bits.push(...i.notes);
  return bits.join('; ');
}

/** What `lanes gc --worktrees` prints for people: one row per worktree, then what was freed. */
export function worktreeGcText(r: WorktreeGcReport, now: number, cwd: string): string {
  // Relative to where the user stands when that is shorter: ../shop.lanes/fix-login.
  const shown = (p: string): string => {
    const rel = relative(cwd, p);
    return rel && rel.length < p.length ? rel : p;
  };
  const width = terminalWidth();
  // Every line of prose wrapped at the width, never cut.
  const say = (line: string) => `${wrap(line, width, '  ')}\n`;
  let out = '';
  const endedNow = r.ended.items.filter((i) => i.outcome === 'reaped' || i.outcome === 'would-reap');
  if (endedNow.length)
    out += say(
      `${r.dryRun ? 'would end' : 'ended'} ${endedNow.length} dead session(s) first, their work snapshotted: ${endedNow.map((i) => i.session).join(', ')}`,
    );
  if (r.items.length === 0) out += say(`no worktrees made by lanes in ${r.repository}`);
  else {
    const rows = r.items.map((i) => [
      OUTCOME[i.outcome],
      shown(i.path),
      i.branch ?? '(detached)',
      i.merged ? 'yes' : 'no',
      size(i.bytes),
      i.unsaved ? `${i.unsaved} file(s)` : '-',
      i.lastActivity === null ? '?' : `${formatAge(now - i.lastActivity)} ago`,
    ]);
    // What was done to which worktree and what it held unsaved stay whole; how old and big go first.
    out += new Table(['DONE', 'WORKTREE', 'BRANCH', 'MERGED', 'SIZE', 'UNSAVED', 'ACTIVE'], rows, {
      width,
      drop: ['BRANCH'],
      spare: ['ACTIVE', 'MERGED', 'SIZE'],
      keep: ['DONE', 'UNSAVED'],
      shorten: { WORKTREE: 'path' },
    }).toString();
    // Each note whole, under the table: why a worktree was kept, or what failed, is never cut.
    for (const i of r.items.filter((x) => note(x)))
      // Its lines hang past the bullet (layout.ts wrap).
      out += `${wrap(`${pc.dim('•')} ${shown(i.path)}: ${note(i)}`, width)}\n`;
    const count = (o: WorktreeGcItem['outcome']) => r.items.filter((i) => i.outcome === o).length;
    const parts = r.dryRun
      ? [`${count('would-remove')} to remove`, `${count('would-reclaim')} to reclaim`]
      : [`${count('removed')} removed`, `${count('reclaimed')} reclaimed`];
    parts.push(`${count('kept')} kept`);
    if (count('failed')) parts.push(pc.red(`${count('failed')} failed`));
    out += say(`${r.dryRun ? 'would free' : 'freed'} ${prettyBytes(r.freedBytes)} (${parts.join(', ')})`);
  }
  if (r.notMadeByLanes) out += say(`${r.notMadeByLanes} other worktree(s) were not made by lanes: left alone`);
  if (r.processesUnreadable > 0)
    out += say(
      pc.yellow(
        process.getuid?.() === 0
          ? `${r.processesUnreadable} process(es) could not be read even as root (/proc mounted with hidepid, or another PID namespace): a worktree only they use was not seen as used`
          : `${r.processesUnreadable} process(es) of other users could not be read (run as root to see them): a worktree only they use was not seen as used`,
      ),
    );
  if (!r.processesChecked)
    out += say(pc.yellow("processes' working directories could not be read here: only lanes sessions kept a worktree"));
  return out;
}
