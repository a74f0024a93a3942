import { EXIT } from '../../core/errors.js';
import type { LandMode } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { ACT_AS } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson } from '../output.js';
import { landQueue, pushedText } from '../queue-text.js';
import type { Lanes } from '../../index.js';

export const command: CommandSpec = {
  name: 'land',
  summary: "Publish this session's branch onto the target branch, fenced by the session's ticket claim.",
  usage:
    'land [--into BRANCH] [--ff|--merge|--squash] [--ticket T | --from SESSION | --session S | --queue] [--push [--remote NAME]] [--json]',
  description: [
    'The session must hold its ticket claim with the current fencing token (checked again right before the',
    'target moves): a holder whose claim was taken over is refused with exit 4. Conflicts with the target',
    'are refused with exit 3. The target moves by compare-and-swap; if it is checked out in a worktree,',
    'that worktree must be clean and is brought to the new commit. Default: fast-forward when possible,',
    'else a merge commit. --ticket T (or --from SESSION): the branch of a session that finished, died or ended,',
    'landed from here (its worktree there or removed by gc) through a session of this command that claims',
    "the ticket (fenced: the finished session's claim is free or taken over), lands and ends, every step",
    'journaled; a live session lands its own work (exit 3).',
    '--queue: the sessions marked ready (lanes ready, lanes queue) land one at a time in the order they became',
    "ready: each checked with git merge-tree against the target's tip (a conflict touches no worktree), brought",
    'onto it in its worktree ([land] strategy: rebase, the default, or merge), [land] check run there on the',
    'result (as allowed: lanes allow), then landed fenced as above. One that conflicts or fails its check is',
    'stopped (its branch as it was, journaled as land.stop) and the queue goes on; exit 3 when any was stopped.',
    'A run killed at any point is undone (a rebase in the middle aborted, a branch put back) by the next one.',
    "--push: the target's remote is read before anything lands (one with commits the target here lacks: exit 3,",
    'nothing landed); after the landing the target is pushed with that tip leased (git push --force-with-lease):',
    'a remote moved in between is a refusal (exit 3) naming the commit and committer that moved it, never an overwrite.',
  ].join('\n'),
  options: {
    into: { type: 'string', arg: 'BRANCH', help: "the target (default: the repository's main branch)" },
    ff: { type: 'boolean', help: 'fast-forward only' },
    merge: { type: 'boolean', help: 'always a merge commit' },
    squash: { type: 'boolean', help: 'one squashed commit on the target' },
    session: ACT_AS,
    ticket: {
      type: 'string',
      arg: 'T',
      help: "land the branch of T's last session (finished, dead or ended; its worktree there or gone)",
    },
    from: { type: 'string', arg: 'SESSION', help: 'land the branch of that finished, dead or ended session' },
    queue: { type: 'boolean', help: 'land the ready sessions (lanes ready) one at a time, in order' },
    push: {
      type: 'boolean',
      help: 'then push the target to its remote, only if the remote is still where it was read',
    },
    remote: {
      type: 'string',
      arg: 'NAME',
      help: "with --push: the remote (default: the target's upstream, else origin)",
    },
  },
  maxPositionals: 0,
  async run(args, io) {
    const modes = (['ff', 'merge', 'squash'] as const).filter((m) => args.values[m]);
    if (modes.length > 1) throw usageError(this, 'choose one of --ff, --merge, --squash');
    const of = str(args.values['ticket']) ?? str(args.values['from']);
    if (args.values['ticket'] !== undefined && args.values['from'] !== undefined)
      throw usageError(this, 'give --ticket or --from, not both');
    const into = str(args.values['into']);
    const remote = str(args.values['remote']);
    const push = args.values['push'] === true;
    if (remote !== undefined && !push) throw usageError(this, '--remote goes with --push');
    const leaseOf = async (lanes: Lanes) =>
      push ? lanes.queue.lease({ ...(into ? { into } : {}), ...(remote ? { remote } : {}) }) : null;
    if (args.values['queue'] === true) {
      if (of !== undefined || modes.length > 0 || args.values['session'] !== undefined)
        throw usageError(this, '--queue lands the ready sessions: give only --into and --push with it');
      const lanes = await io.lanes({ session: null });
      return landQueue(lanes, into, io, await leaseOf(lanes));
    }
    const lanes = await io.lanes(of !== undefined ? { session: null } : {});
    const lease = await leaseOf(lanes);
    const mode: LandMode | undefined = modes[0];
    const opts = { ...(into ? { into } : {}), ...(mode ? { mode } : {}) };
    const r = of !== undefined ? await lanes.landFinished(of, opts) : await lanes.land(opts);
    if (!io.json)
      io.stdout(
        `landed ${r.branch.replace('refs/heads/', '')} on ${r.target} (${r.mode}): ${r.from.slice(0, 10)} -> ${r.to.slice(0, 10)}, under ${r.ticket} token ${r.token}${r.updatedWorktree ? `; updated ${r.updatedWorktree}` : ''}\n`,
      );
    const pushed = lease ? await lanes.queue.push(lease) : null;
    if (io.json) printJson(io.stdout, pushed ? { ...r, push: pushed } : r);
    else if (pushed) io.stdout(pushedText(pushed));
    return EXIT.ok;
  },
};
