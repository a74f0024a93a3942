import type { JournalEntry } from '../../index.js';

// One readable line per journal entry: local time, sequence number, kind, who, what and why.

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** `2026-11-30 17:45:12` in the machine's local time. */
export function localTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const list = (v: unknown): string => (Array.isArray(v) ? v.map(str).join(', ') : str(v));

/** What happened, in words, from the entry's kind and details. */
export function describeEntry(e: JournalEntry): string {
  const d = e.details;
  switch (e.kind) {
    case 'session.start':
      return `started${d['agent'] ? ` (${str(d['agent'])})` : ''}${d['worktree'] ? ` in ${str(d['worktree'])}` : ''}, pid ${str(d['pid'])}`;
    case 'session.attach':
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
    case 'session.join':
      return `joined ${e.subject} beside ${str(d['holder'])} (token ${str(d['token'])})`;
    default:
      return `${e.subject} ${JSON.stringify(d)}`;
  }
}

export function formatEntry(e: JournalEntry): string {
  const who = e.session ? `${e.session}${e.ticket ? ` [${e.ticket}]` : ''}` : '-';
  // Numbers padded to six places, so the columns stand still past #9, #99, … up to #999999.
  return `${localTime(e.at)}  ${`#${e.seq}`.padEnd(7)}  ${e.kind.padEnd(15)}  ${who}  ${describeEntry(e)}\n`;
}
