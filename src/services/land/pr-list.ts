import type { JournalEntry } from '../../store/journal-types.js';
import type { LanesContext } from '../context.js';
import { ghPrState, prStateText } from './pr-state.js';
import type { PrState } from './pr-state.js';

// The pull requests lanes opened, as the journal has them (`pr`, and `pr.checks` each time gh said
// something new of one): what the report, `lanes top` and the page show. Refreshing asks gh for
// each open one's state and checks and journals only a change, so a page open all night writes
// a line per change of a pull request, not per look.

export interface PullRequest {
  url: string;
  session: string;
  ticket: string | null;
  repo: string | null;
  branch: string;
  base: string;
  openedAt: number;
  /** The last state gh gave (null: never asked, or gh could not be asked). */
  state: PrState | null;
  /** `open, checks failing (test)`; `open` when never asked. */
  text: string;
  checkedAt: number | null;
}

const KINDS = ['pr', 'pr.checks'];

export async function readPullRequests(ctx: LanesContext, o: { repo?: string | null } = {}): Promise<PullRequest[]> {
  const byUrl = new Map<string, PullRequest>();
  for (let afterSeq = 0; ;) {
    const page: JournalEntry[] = await ctx.store.readJournal({
      kinds: KINDS,
      afterSeq,
      limit: 1000,
      ...(o.repo ? { repo: o.repo } : {}),
    });
    for (const e of page) {
      const d = e.details;
      if (e.kind === 'pr' && typeof d['url'] === 'string') {
        const had = byUrl.get(d['url']);
        byUrl.set(d['url'], {
          ...{ url: d['url'], session: e.subject, ticket: e.ticket, repo: e.repo },
          ...{ branch: String(d['branch'] ?? ''), base: String(d['base'] ?? ''), openedAt: had?.openedAt ?? e.at },
          ...{ state: had?.state ?? null, text: had?.text ?? 'open', checkedAt: had?.checkedAt ?? null },
        });
      }
      const pr = e.kind === 'pr.checks' ? byUrl.get(e.subject) : undefined;
      if (pr && d['state'] && typeof d['state'] === 'object') {
        pr.state = d['state'] as unknown as PrState;
        pr.text = String(d['text'] ?? '');
        pr.checkedAt = e.at;
      }
    }
    if (page.length < 1000) break;
    afterSeq = page[page.length - 1]!.seq;
  }
  return [...byUrl.values()];
}

/** When each pull request was last asked about, in this process: a page asks gh at most this often. */
const asked = new Map<string, number>();

/**
 * Asks gh for each open pull request's state (those asked less than `minAgeMs` ago in this process
 * are left), journals the ones that changed, returns the list. A pull request gh cannot be asked
 * about (gh missing, offline) keeps its last state; the reason is in `errors`.
 */
export async function refreshPullRequests(
  ctx: LanesContext,
  o: { repo?: string | null; cwd: string; minAgeMs?: number },
): Promise<{ pullRequests: PullRequest[]; errors: string[] }> {
  const list = await readPullRequests(ctx, o);
  const errors: string[] = [];
  const now = Date.now();
  const due = list.filter(
    (p) => (p.state === null || p.state.state === 'OPEN') && now - (asked.get(p.url) ?? 0) >= (o.minAgeMs ?? 0),
  );
  await Promise.all(
    due.map(async (p) => {
      asked.set(p.url, now);
      try {
        const state = await ghPrState(o.cwd, p.url, ctx.env);
        const text = prStateText(state);
        if (JSON.stringify(state) === JSON.stringify(p.state)) return;
        await ctx.store.appendJournal([
          {
            ...{ kind: 'pr.checks', subject: p.url, session: p.session, repo: p.repo, ticket: p.ticket },
            details: { state: state as unknown as Record<string, unknown>, text },
          },
        ]);
        Object.assign(p, { state, text, checkedAt: await ctx.store.now() });
      } catch (e) {
        errors.push((e as Error).message);
      }
    }),
  );
  return { pullRequests: list, errors: [...new Set(errors)] };
}
