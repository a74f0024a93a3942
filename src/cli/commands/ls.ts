import { EXIT } from '../../core/errors.js';
import { formatAge } from '../../core/duration.js';
import { formatResource } from '../../core/resource.js';
import type { Lanes, SessionRow } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { printJsonPaged } from '../json-list.js';
import { terminalWidth, wrap } from '../layout.js';
import { Table, sessionStateText } from '../output.js';
import { TableMeasure, type Cell, type Fit } from '../table.js';
import { utcMinute } from '../../core/duration.js';
import { nested } from '../../core/nesting.js';

export const command: CommandSpec = {
  name: 'ls',
  summary: 'List sessions: live, dead (its owner is gone but it never ended) or ended (with --all).',
  usage: 'ls [--all] [--json]',
  description: [
    'By default: live sessions, and (the first 50) dead ones that still hold claims or have unsaved work',
    'in a worktree no live session shares; the other dead ones are counted (`lanes gc` ends them). --all lists every',
    'session, ended ones too, read a page at a time (any number of sessions in the memory of one page). --json',
    'lists every session not ended (with --all: every session), streamed the same way. STATE of a live session says what its agent signalled through its hooks: waiting (for',
    'you: a permission prompt, a question, a turn stopped on an error), finished (its turn), denied (lanes',
    'denied a call this turn); else live. `lanes notify --help`: being told of these.',
  ].join('\n'),
  options: { all: { type: 'boolean', short: 'a', help: 'every session, ended and dead ones included' } },
  maxPositionals: 0,
  async run(args, io) {
    // Only the `*` marker uses the session: $LANES_SESSION as set, no ancestor walk (one process-table read for the list).
    const lanes = await io.lanes({ session: process.env['LANES_SESSION'] || null });
    const all = args.values['all'] === true;
    if (io.json) {
      // Every claim of every session, as before, read and written a page at a time; the sessions too.
      const held = new Set<string>();
      const views = async function* () {
        for await (const page of lanes.sessions.rowPages({ all, claimsShown: 0 })) {
          // What each spent, from its agent's own record (null: lanes reads no record of it).
          const spent = await lanes.sessions.spend(page.map((p) => p.row)).catch(() => null);
          const of = new Map(spent?.sessions.map((x) => [x.session, x]) ?? []);
          yield page.map(({ row: { claimCount, ...view } }) => {
            if (claimCount > 0) held.add(view.id);
            const x = of.get(view.id);
            const spend = x?.measured
              ? { tokens: x.tokens, costUsd: x.costUsd, toolCalls: x.tokens.toolCalls, wallMs: x.wallMs }
              : null;
            return { ...view, spend };
          });
        }
      };
      await printJsonPaged(io, views(), 'claims', (view) =>
        held.delete(view.id) ? lanes.sessions.claimPages(view.id) : null,
      );
      return EXIT.ok;
    }
    // The CLAIMS column is at most CLAIM_LINES lines of the terminal's width: a session's first claimsShown fill more.
    const width = terminalWidth();
    const claimsShown = claimsToFill(width);
    // The store's clock and the seats are asked after the sessions (a seat out is said under the table).
    let now = 0;
    const seats = async () => wrapLines(await seatsOutText(lanes), width);
    const cells = (r: { row: SessionRow; depth: number }) => sessionCells(r, now, lanes.sessionId);
    if (all) {
      // Months of sessions in the memory of one page: read once to measure the table, then again
      // to draw it; a listing of up to HELD_ROWS rows is held from the first read instead.
      const pages = () => lanes.sessions.rowPages({ all: true, claimsShown, nest: true, size: 1000 });
      const measure = new TableMeasure(HEAD, fitTo(width));
      let held: Cell[][] | null = [];
      let count = 0;
      const first = pages();
      now = await lanes.now();
      for await (const page of first) {
        for (const r of page) {
          const row = cells(r);
          measure.add(row);
          held = held && held.length < HELD_ROWS ? (held.push(row), held) : null;
          count++;
        }
      }
      const seatsOut = await seats();
      if (count === 0) {
        io.stdout('no sessions\n' + seatsOut);
        return EXIT.ok;
      }
      const layout = measure.layout();
      io.stdout(layout.header() + '\n');
      const drawn = held ? [held] : mapPages(pages(), (page) => page.map(cells));
      for await (const page of drawn) {
        io.stdout(page.map((row) => layout.row(row) + '\n').join(''));
        await io.drained();
      }
      io.stdout(seatsOut);
      return EXIT.ok;
    }
    const { sessions, hidden, moreDead } = await lanes.sessions.overview({ claimsShown });
    now = await lanes.now();
    const seatsOut = await seats();
    const more = wrapLines(
      (moreDead
        ? `${moreDead} more dead session(s) holding claims or unsaved work not shown (lanes ls --all lists them; lanes gc ends them after saving their work)\n`
        : '') +
        (hidden
          ? `${hidden} dead session(s) without claims or unsaved work not shown (lanes ls --all lists them; lanes gc ends them)\n`
          : ''),
      width,
    );
    if (sessions.length === 0) {
      io.stdout((more || 'no sessions (ended ones: lanes ls --all)\n') + seatsOut);
      return EXIT.ok;
    }
    for (const chunk of new Table(HEAD, nested(sessions).map(cells), fitTo(width)).chunks()) {
      io.stdout(chunk);
      await io.drained();
    }
    io.stdout(more + seatsOut);
    return EXIT.ok;
  },
};

/** A session's row of the table: a subagent's right under the one it works for (core/nesting.ts), marked as such. */
export function sessionCells(
  { row: s, depth }: { row: SessionRow; depth: number },
  now: number,
  me: string | null,
): Cell[] {
  return [
    (depth > 0 ? `${'  '.repeat(depth - 1)}└ ` : '') + s.id + (s.id === me ? ' *' : ''),
    sessionStateText(s),
    formatAge(now - s.createdAt),
    s.agent,
    s.ticket,
    s.label,
    `${s.owner.pid}@${s.owner.host}${s.terminal?.startsWith('tmux ') ? ` (${s.terminal})` : ''}`,
    s.worktree ?? s.cwd,
    claimsText(s),
  ];
}

/** `ls --all` holds a listing of up to this many rows from its first read (else it reads them twice). */
const HELD_ROWS = 5000;

async function* mapPages<T, U>(pages: AsyncIterable<T>, f: (page: T) => U): AsyncGenerator<U> {
  for await (const page of pages) yield f(page);
}

export const HEAD = ['SESSION', 'STATE', 'AGE', 'AGENT', 'TICKET', 'LABEL', 'PID', 'WORKTREE', 'CLAIMS'];

/**
 * What a person acts on stays whole: the id, the claims (wrapped, ticket and paths first: the
 * library reads them in that order) and the worktree by its last parts; the agent and label go
 * before those are cut, the owner's pid and the age first.
 */
export const fitTo = (width: number): Fit => ({
  width,
  keep: ['SESSION'],
  drop: ['PID', 'AGE'],
  spare: ['AGENT', 'LABEL'],
  shorten: { WORKTREE: 'path', LABEL: 'end', TICKET: 'end', AGENT: 'end' },
  wrap: { CLAIMS: CLAIM_LINES },
});

/** A seat that ran out stays in view until its reset (issue 29): the sessions on it wait or moved. */
async function seatsOutText(lanes: Lanes): Promise<string> {
  const out = (await lanes.seats.list()).filter((s) => s.state === 'exhausted');
  return out
    .map(
      (s) =>
        `seat ${s.name} (${s.agent}) ran out${s.exhaustedWhy ? ` (${s.exhaustedWhy})` : ''}; lanes uses it again after ${utcMinute(s.until ?? 0)} (lanes seat ls; lanes seat reset ${s.name} once it has quota)\n`,
    )
    .join('');
}

/** The CLAIMS column wraps onto at most this many lines (the last one cut with an ellipsis). */
export const CLAIM_LINES = 3;

/**
 * How many of a session's claims fill a column of `width` and CLAIM_LINES lines: a claim shows as
 * at least `k:n` and a space, so this many overflow it, and the column shows what it would of all
 * of them (up to a terminal 4,000 columns wide).
 */
export function claimsToFill(width: number): number {
  return Math.min(3000, Math.floor((width * CLAIM_LINES) / 4) + 1);
}

/** Lines of prose under the table, each wrapped at the width (never cut, as a cell would be). */
function wrapLines(text: string, width: number): string {
  return text
    .split('\n')
    .map((l) => wrap(l, width, '  '))
    .join('\n');
}

/** A session's claims as the CLAIMS column shows them; when they overflow it, how many there are first. */
function claimsText(s: SessionRow): string {
  const text = s.claims.map(formatResource).join(' ');
  return s.claimCount > s.claims.length ? `${s.claimCount} claims: ${text}` : text;
}
