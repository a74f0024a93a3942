import { timesIn } from '../../core/times-in.js';
import type { Lanes } from '../lanes-api.js';
import type { SessionView } from '../sessions/sessions.js';
import { sessionName } from './deaths.js';
import { reviewList } from './review.js';
import type { NightReport } from './types.js';

/**
 * The report's morning parts, read once its tickets are known: the review list from the landing
 * queues of the window's repositories and their pull requests (each asked of gh at most once a
 * minute: the page asks often), and what the night's sessions spent, from their agents' own
 * records (read from where the last read stopped).
 */
export async function addReviewAndSpend(
  lanes: Lanes,
  report: NightReport,
  byId: Map<string, SessionView>,
  now: number,
): Promise<void> {
  const repos = [...new Set(report.tickets.map((t) => t.repo).filter((x): x is string => !!x))];
  const queues = await Promise.all(repos.map((repo) => lanes.queue.list({ repo }).catch(() => null)));
  const found = queues.filter((q): q is NonNullable<typeof q> => q !== null);
  const prs = await Promise.all(
    repos.map((repo) =>
      lanes.pullRequests.list({ repo, refresh: true, minAgeMs: 60_000 }).then(
        (p) => p.pullRequests,
        () => [],
      ),
    ),
  );
  report.review = reviewList(report, found, (id) => sessionName(id, byId.get(id)), prs.flat()).map((e) => {
    const times = timesIn(e.what, now);
    return times.length ? { ...e, times } : e;
  });
  const ofNight = [...new Set(report.tickets.flatMap((t) => t.sessions.map((s) => s.id)))];
  const sessions = ofNight.map((id) => byId.get(id)).filter((s): s is SessionView => s !== undefined);
  const spent = await lanes.sessions.spend(sessions, now).catch(() => null);
  if (spent) report.spend = spent;
}
