import { redacted } from '../../core/redact.js';
import type { Secret } from '../../core/redact.js';
import { git } from '../../git/run.js';
import type { JournalEntry } from '../../store/journal-types.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { describeEntry } from '../journal/describe-entry.js';

// What `lanes pr` writes (issue 49, item 4): the title from the ticket and the task, the body from
// the session's record: its commits, the checks lanes ran on its work, the claims it held and the
// journal's decisions about it. It goes to GitHub, so it is redacted as the page and the
// notifications are ([env] strip's values, token shapes), and it is bounded.

const MAX_COMMITS = 50;
const MAX_DECISIONS = 30;
const TITLE_MAX = 120;

/** Kinds that are decisions a reviewer should see: what lanes refused, allowed over, or stopped. */
const DECISIONS = new Set([
  'claim.refuse',
  'claim.takeover',
  'hook.deny',
  'hook.unchecked',
  'commit.refuse',
  'handoff.refuse',
  'state.refuse',
  'fence.refuse',
  'trust.refuse',
  'collision',
  'sweep.flag',
  'land.stop',
  'tell',
]);

export interface PrText {
  title: string;
  body: string;
  commits: number;
}

const firstLine = (t: string) =>
  t
    .split('\n')
    .find((l) => l.trim())
    ?.trim() ?? '';

function clip(t: string, n: number): string {
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
}

async function sessionJournal(ctx: LanesContext, id: string): Promise<JournalEntry[]> {
  const out: JournalEntry[] = [];
  for (let afterSeq = 0; out.length < 20_000;) {
    const page = await ctx.store.readJournal({ session: id, afterSeq, limit: 1000 });
    out.push(...page);
    if (page.length < 1000) break;
    afterSeq = page[page.length - 1]!.seq;
  }
  return out;
}

export async function prText(
  ctx: LanesContext,
  s: SessionRecord,
  o: { cwd: string; base: string; branch: string; secrets: readonly Secret[]; title?: string },
): Promise<PrText> {
  const log = await git(['log', '--reverse', '--no-merges', '--format=%h%x09%s', `${o.base}..${o.branch}`, '--'], {
    cwd: o.cwd,
  });
  const commits = log.split('\n').filter(Boolean);
  const task = s.task ? firstLine(s.task) : '';
  const topic = task || (commits[0]?.split('\t')[1] ?? o.branch);
  // A commit's subject often names the ticket already: `T-1: T-1: …` says it twice.
  const named = !s.ticket || topic.toLowerCase().startsWith(s.ticket.toLowerCase());
  const title = o.title ?? clip(named ? topic : `${s.ticket}: ${topic}`, TITLE_MAX);
  const journal = await sessionJournal(ctx, s.id);
  const claims = new Map<string, string>();
  for (const e of journal) {
    if (e.kind === 'claim.grant' || e.kind === 'claim.takeover') claims.set(e.subject, 'held');
    if (e.kind === 'claim.release' && claims.has(e.subject)) claims.set(e.subject, 'released');
  }
  const checks = journal.filter((e) => e.kind === 'land.stop' && e.details['reason'] === 'check failed');
  const decisions = journal.filter((e) => DECISIONS.has(e.kind)).slice(-MAX_DECISIONS);
  const when = (at: number) => new Date(at).toISOString().slice(0, 16).replace('T', ' ');
  const who = [s.label, s.agent].filter(Boolean).join(', ');
  const lines = [
    `Opened by [lanes](https://www.npmjs.com/package/lanes) for session \`${s.id}\`${who ? ` (${who})` : ''}${s.ticket ? `, ticket **${s.ticket}**` : ''}, branch \`${o.branch}\` onto \`${o.base}\`.`,
    ...(s.task
      ? [
          '',
          '## Task',
          '',
          ...clip(s.task.trim(), 4000)
            .split('\n')
            .map((l) => `> ${l}`),
        ]
      : []),
    '',
    `## Commits (${commits.length})`,
    '',
    ...commits.slice(0, MAX_COMMITS).map((c) => `- ${c.replace('\t', ' ')}`),
    ...(commits.length > MAX_COMMITS ? [`- … and ${commits.length - MAX_COMMITS} more`] : []),
    '',
    '## Checks lanes ran',
    '',
    ...(checks.length
      ? checks.map((e) => `- ${when(e.at)} UTC: ${clip(describeEntry(e).split('\n')[0]!, 300)}`)
      : ['- none recorded (the landing queue runs `[land] check`; CI runs on this pull request)']),
    '',
    '## Claims',
    '',
    ...(claims.size ? [...claims].map(([r, state]) => `- \`${r}\` (${state})`) : ['- none']),
    '',
    '## Decisions in the journal',
    '',
    ...(decisions.length
      ? decisions.map((e) => `- ${when(e.at)} UTC \`${e.kind}\`: ${clip(describeEntry(e).split('\n')[0]!, 300)}`)
      : ['- none: nothing was refused, denied or taken over']),
  ];
  return { title: redacted(title, o.secrets), body: redacted(lines.join('\n'), o.secrets), commits: commits.length };
}
