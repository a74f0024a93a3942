import type { JournalEntry } from '../../store/journal-types.js';

// One sentence per journal entry, from its kind and details: what `lanes log` prints and the
// page's journal shows (its details stay one click away there).

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const list = (v: unknown): string => (Array.isArray(v) ? v.map(str).join(', ') : str(v));

/**
 * What happened, in words, from the entry's kind and details. A row lanes could not read whole says
 * so; details of the wrong shape for their kind (another version's writer) never throw.
 */
export function describeEntry(e: Pick<JournalEntry, 'kind' | 'subject' | 'details' | 'unreadable'>): string {
  if (e.unreadable) return `unreadable row: ${e.unreadable}`;
  try {
    return describeKnown(e);
  } catch {
    return `unreadable details for ${e.kind}: ${JSON.stringify(e.details).slice(0, 120)}`;
  }
}

function describeKnown(e: Pick<JournalEntry, 'kind' | 'subject' | 'details'>): string {
  const d = e.details;
  switch (e.kind) {
    case 'session.start':
      return `started${d['agent'] ? ` (${str(d['agent'])})` : ''}${d['worktree'] ? ` in ${str(d['worktree'])}` : ''}, pid ${str(d['pid'])}`;
    case 'session.attach':
      if (typeof d['conversation'] === 'string')
        return `the agent's own session ${d['conversation']} bound to it (its hooks act as this session)${typeof d['before'] === 'string' ? `, was ${d['before']}` : ''}`;
      return `${d['reopened'] ? 're-opened' : 're-attached'} to pid ${str(d['pid'])}`;
    case 'session.end': {
      const released = (d['released'] as { resource: string }[] | undefined) ?? [];
      return `ended: ${str(d['reason'])}${released.length ? `; released ${released.map((r) => r.resource).join(', ')}` : ''}`;
    }
    case 'claim.grant':
      return `claimed ${e.subject} (token ${str(d['token'])})`;
    case 'claim.takeover':
      return `took over ${e.subject} from ${str(d['oldHolder'])} (token ${str(d['oldToken'])} → ${str(d['token'])}): ${str(d['why'])}`;
    case 'claim.release':
      return `released ${e.subject} (token ${str(d['token'])})`;
    case 'claim.refuse': {
      const held = (d['heldBy'] as { resource: string; session: string }[] | undefined) ?? [];
      return `refused ${e.subject}: held by ${held.map((h) => `${h.session} (${h.resource})`).join(', ')}`;
    }
    case 'claim.wait':
      return `waits for ${e.subject}${list(d['heldBy']) ? `, held by ${list(d['heldBy'])}` : ''}`;
    case 'claim.cycle':
      return `refused to wait for ${e.subject}: deadlock (${str(d['cycle'])})`;
    case 'gate.wait':
      return `waited ${Math.round(Number(d['waitedMs']) / 100) / 10}s for ${e.subject}${d['heldBy'] ? ` held by ${str(d['heldBy'])}` : ''}`;
    case 'hook.deny':
      return `${str(d['agent'])} ${str(d['event'])} denied: ${e.subject}${list(d['holders']) ? ` (held by ${list(d['holders'])})` : ''}`;
    case 'hook.warn':
      return `${str(d['agent'])} warned: ${e.subject} also changed by ${list(d['holders'])}`;
    case 'hook.unchecked':
      return `${str(d['agent'])} ${str(d['event'])} was NOT checked (lanes could not reach its store; allowed): ${e.subject}: ${str(d['error'])}`;
    case 'attention':
      return `${str(d['agent']) || 'the agent'} ${d['state'] === 'waiting' ? 'waits for you' : 'finished its turn'}${d['why'] ? `: ${str(d['why'])}` : ''}`;
    case 'notify.sent':
      return `notified (${list(d['channels'])}): ${str(d['event'])}`;
    case 'notify.fail':
      return `could not notify ${str(d['event'])}${d['channel'] ? ` by ${str(d['channel'])}` : ''}${Number(d['attempts']) > 1 ? ` after ${str(d['attempts'])} tries` : ''}: ${str(d['error'])}`;
    case 'commit':
      return `committed ${str(d['count'])} file(s) to ${e.subject} (${str(d['commit']).slice(0, 12)})`;
    case 'snapshot':
      return `snapshot ${e.subject} (${str(d['files'])} file(s)): ${str(d['why'])}`;
    case 'restore':
      return `restored ${e.subject} into ${str(d['into'])}`;
    case 'sweep.flag':
      return `sweep flagged ${str(d['flag'])}: ${str(d['message'])}`;
    case 'conflicts.found':
      return `conflicts predicted against ${e.subject}: ${(d['pairs'] as unknown[] | undefined)?.length ?? 0} pair(s)`;
    case 'land':
      return `landed ${str(d['branch'])} into ${e.subject} (${str(d['from']).slice(0, 12)} → ${str(d['to']).slice(0, 12)}, token ${str(d['token'])})`;
    case 'commit.intent':
      return `committing ${str(d['count'])} path(s) onto ${e.subject} as ${str(d['commit']).slice(0, 12)}: about to move the branch`;
    case 'commit.abort':
      return `commit onto ${e.subject} did not happen: ${str(d['why'])}`;
    case 'land.intent':
      return `landing ${str(d['branch'])} into ${e.subject} (${str(d['from']).slice(0, 12)} → ${str(d['to']).slice(0, 12)}, token ${str(d['token'])}): about to publish`;
    case 'land.abort':
      return `land of ${str(d['branch'])} into ${e.subject} did not publish: ${str(d['why'])}`;
    case 'land.ready':
      return `${e.subject} is ready to land: ${str(d['branch'])} at ${str(d['tip']).slice(0, 12)} (marked by ${str(d['by'])})`;
    case 'land.unready':
      return `${e.subject} left the landing queue${d['why'] ? `: ${str(d['why'])}` : ` (taken back by ${str(d['by'])})`}`;
    case 'tell':
      return `${str(d['from'])} told ${e.subject}: ${str(d['message']).slice(0, 300)}`;
    case 'tell.delivered':
      return `the message #${str(d['seq'])} reached ${e.subject}'s agent (${str(d['via'])})`;
    case 'land.push':
      return `pushed ${e.subject} to ${str(d['remote'])} (${d['from'] ? str(d['from']).slice(0, 12) : 'new'} → ${str(d['to']).slice(0, 12)}, leased)`;
    case 'pr':
      return `${d['existed'] ? 'pushed to the pull request' : 'opened the pull request'} ${str(d['url'])}: ${str(d['branch'])} at ${str(d['head']).slice(0, 12)} into ${str(d['base'])}`;
    case 'budget.pause':
      return `${e.subject} was paused by its budget: ${str(d['what'])}`;
    case 'budget.soft':
      return `${e.subject} passed its soft budget: ${str(d['what'])}`;
    case 'budget.continue':
      return `${e.subject} goes on past its budget (${str(d['by'])}): now ${str(d['limits'])}`;
    case 'budget.runaway':
      return `${e.subject} looks like a runaway: ${str(d['what'])}`;
    case 'budget.stop':
      return `${e.subject} was stopped: paused by its budget for longer than its grace (${str(d['what'])})`;
    case 'pr.checks':
      return `${e.subject} is ${str(d['text'])}`;
    case 'land.stop':
      return `the landing queue stopped ${e.subject} (${str(d['reason'])}): ${str(d['why'])}`;
    case 'adopt':
      return `adopted ${e.subject}${d['worktree'] ? ` (worktree ${str(d['worktree'])})` : ''}`;
    case 'doctor.fix':
      return `doctor fixed ${str(d['finding'])}: ${str(d['fixed'])}`;
    case 'state.refuse':
    case 'handoff.refuse':
    case 'fence.refuse':
    case 'commit.refuse':
    case 'land.refuse':
      return `refused ${e.kind.startsWith('commit') ? 'commit of ' : ''}${e.subject}: ${str(d['message'])}`;
    case 'guard.refuse':
      return `guard refused a git commit in ${e.subject}: ${list(d['claimed']) || `index shared with ${list(d['sharedWith'])}, ${str(d['notClaimedCount'])} staged path(s) not claimed`}`;
    case 'guard.override':
      return `guard let a git commit through in ${e.subject} (${str(d['override'])}=1): ${str(d['notClaimedCount'])} staged path(s) not claimed`;
    case 'teardown.fail':
      return `the [session] teardown failed${d['code'] !== null && d['code'] !== undefined ? ` (exit ${str(d['code'])})` : ''}: ${str(d['why'])}`;
    case 'trust.allow':
    case 'trust.deny':
      return `${e.kind === 'trust.allow' ? 'allowed' : 'denied'} ${e.subject} (sha256 ${str(d['sha256']).slice(0, 12)}): ${list(d['runs'])}`;
    case 'trust.refuse':
      return `refused ${list(d['runs'])} of ${e.subject} (${str(d['doing'])}): ${d['state'] === 'denied' ? 'denied' : 'not allowed'}`;
    case 'worktree.remove':
      return `${str(d['by'])} removed the worktree ${e.subject}${d['snapshot'] ? `, its work saved in ${str(d['snapshot'])}` : ''}${d['branchDeleted'] ? `, branch ${str(d['branchDeleted'])} deleted (merged)` : d['branch'] ? `, branch ${str(d['branch'])} kept` : ''}`;
    case 'worktree.reclaim':
      return `${str(d['by'])} deleted the rebuildable ${list(d['reclaimed'])} of ${e.subject} (not merged: the worktree stays)`;
    case 'worktree.refuse':
      return `${str(d['by'])} was refused removing the worktree ${e.subject}: ${str(d['why'])}`;
    case 'seat.add':
      return `added the seat ${e.subject} (${str(d['agent'])}, pool ${str(d['pool'])}, ${str(d['concurrency'])} at once${d['payPerUse'] ? ', PAY-PER-USE' : ''}): ${list(d['selects'])}`;
    case 'seat.remove':
      return `removed the seat ${e.subject}`;
    case 'seat.exhausted':
      return `the seat ${e.subject} ran out (${str(d['why'])}${d['message'] ? `: ${str(d['message'])}` : ''}); not used until ${str(d['untilText'])}${d['resetFrom'] ? ` (${str(d['resetFrom'])})` : ''}`;
    case 'seat.restore':
      return `the seat ${e.subject} is usable again${d['by'] ? ` (${str(d['by'])})` : ''}`;
    case 'seat.failover':
      return `${str(d['action']) === 'moved' ? `moved from seat ${str(d['from'])} to ${str(d['to'])}` : str(d['action']) === 'wait' ? `stopped on seat ${str(d['from'])}, ${str(d['why']) || 'waiting for a free seat'}` : `stopped: ${str(d['why'])}`}`;
    case 'session.join':
      return `joined ${e.subject} beside ${str(d['holder'])} (token ${str(d['token'])})`;
    case 'session.died':
      return `died: ${str(d['how'])}${d['snapshot'] ? `; its work saved in ${str(d['snapshot'])}` : ''}${typeof d['unsavedFiles'] === 'number' && d['unsavedFiles'] > 0 ? ` (${str(d['unsavedFiles'])} uncommitted file(s))` : ''}`;
    case 'teardown.done':
      return `[session] teardown ran: ${str(d['command'])}`;
    case 'session.refuse':
      return `refused to end ${e.subject}: it is live, owned by pid ${str(d['pid'])} on ${str(d['host'])}${d['terminal'] ? ` (${str(d['terminal'])})` : ''}, not the caller`;
    default:
      return `${e.subject} ${JSON.stringify(d)}`;
  }
}
