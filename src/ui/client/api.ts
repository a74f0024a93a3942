// The page's one way to the server: the token from the URL `lanes ui` printed, in a header for the
// API (the event stream, which cannot set headers, takes it in its query).
import type { ActionName, ActionResult, FleetView, UiDiff, UiJournalEntry, UiReport } from '../view-types.js';

const token = new URLSearchParams(location.search).get('token') ?? '';
const headers = { 'x-lanes-token': token };

async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(path, { headers });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return (await r.json()) as T;
}

export const fetchFleet = () => getJson<FleetView>('/api/fleet');

export const fetchReport = () => getJson<UiReport>('/api/report');

export function fetchJournal(filter: { kind: string; session: string; ticket: string }): Promise<UiJournalEntry[]> {
  const q = new URLSearchParams({ limit: '200' });
  if (filter.kind) q.set('kind', filter.kind);
  if (filter.session) q.set('session', filter.session);
  if (filter.ticket) q.set('ticket', filter.ticket);
  return getJson<UiJournalEntry[]>(`/api/journal?${q}`);
}

export async function act(action: ActionName, body: Record<string, string>): Promise<ActionResult> {
  const r = await fetch(`/api/actions/${action}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const result = (await r.json().catch(() => null)) as ActionResult | null;
  return result ?? { ok: false, message: `HTTP ${r.status}` };
}

export function events(): EventSource {
  return new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
}

/** A session's work; a refusal (an unknown session, no worktree or branch left) with the server's words. */
export async function fetchDiff(session: string): Promise<UiDiff> {
  const r = await fetch(`/api/diff?${new URLSearchParams({ session })}`, { headers });
  const body = (await r.json().catch(() => null)) as (UiDiff & { error?: { message: string } }) | null;
  if (!r.ok || !body || body.error) throw new Error(body?.error?.message ?? `HTTP ${r.status}`);
  return body;
}
