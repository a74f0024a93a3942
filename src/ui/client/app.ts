// The page: a header with the store and the connection, then the panels. The fleet arrives whole
// from the event stream on every change (Preact redraws what differs); journal entries arrive one
// batch at a time. Keeping the unchanged sessions' objects (share.ts, rows skipped by memo) is off:
// with it the page's heap grew ~1 GB a minute under churn (bench/ui-memory.mjs), measured before the
// page's leak (tonight.ts's kept vnode, htm's static vnodes: html.ts) was found; not measured since.
import { html } from './html.js';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { ActionName, FleetView, UiJournalEntry, UiSession } from '../view-types.js';
import { act, events, fetchFleet } from './api.js';
import { ConfirmDialog } from './confirm.js';
import type { Pending } from './confirm.js';
import { ConflictsPanel } from './conflicts.js';
import { DiffView } from './diff.js';
import { ClaimsPanel } from './claims.js';
import { JournalPanel } from './journal.js';
import { SessionsPanel } from './sessions.js';
import { SnapshotsPanel } from './snapshots.js';
import { TonightPanel, spentBySession, useReport } from './tonight.js';

type Link = 'connecting' | 'live' | 'reconnecting';

/** The picture the page came with (routes.ts), or null. */
const embedded = ((): Shown | null => {
  const text = document.getElementById('lanes-fleet')?.textContent;
  return text ? received(JSON.parse(text) as FleetView) : null;
})();

/**
 * A picture as received, its clock set from this page's: the server sends one only when something
 * changed, so ages (last lanes call, since when) move on here between pictures, every few seconds.
 */
type Shown = FleetView & { receivedAt: number };
function received(f: FleetView): Shown {
  return { ...f, receivedAt: Date.now() };
}
const TICK_MS = 5000;

export function App() {
  const [shown, setFleet] = useState<Shown | null>(embedded);
  const [, setTick] = useState(0);
  const [link, setLink] = useState<Link>('connecting');
  const [news, setNews] = useState<UiJournalEntry[][]>([]);
  const [pending, setPending] = useState<Pending | null>(null);
  const [status, setStatus] = useState('');
  const [diffOf, setDiffOf] = useState<string | null>(diffInHash());
  useEffect(() => {
    // A file's link inside the diff view (#diff-file-N) moves within it: the view stays open.
    const onHash = () => {
      if (!location.hash.startsWith('#diff-file-')) setDiffOf(diffInHash());
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const closeDiff = useCallback(() => {
    // The address keeps its token (?token=…): only the #diff= part goes.
    history.replaceState(null, '', `${location.pathname}${location.search}#sessions`);
    setDiffOf(null);
  }, []);

  useEffect(() => {
    let source: EventSource | null = null;
    if (!embedded)
      fetchFleet()
        .then((f) => setFleet(received(f)))
        .catch((e: Error) => setStatus(`could not read the fleet: ${e.message}`));
    source = events();
    source.onopen = () => setLink('live');
    source.onerror = () => setLink('reconnecting');
    source.addEventListener('fleet', (e) => {
      const next = JSON.parse((e as MessageEvent<string>).data) as FleetView;
      setFleet((now) => (now && now.version === next.version ? now : received(next)));
    });
    source.addEventListener('journal', (e) =>
      setNews((n) => [...n.slice(-50), JSON.parse((e as MessageEvent<string>).data) as UiJournalEntry[]]),
    );
    const tick = setInterval(() => setTick((n) => n + 1), TICK_MS);
    return () => {
      source?.close();
      clearInterval(tick);
    };
  }, []);
  const fleet = shown ? { ...shown, at: shown.at + (Date.now() - shown.receivedAt) } : null;
  // The report is read here, not in its panel: the sessions' rows show each one's spend from it.
  const night = useReport(shown?.version ?? 0);
  const spent = useMemo(() => spentBySession(night.report), [night.report]);

  // The same function in every drawing: a row whose session did not change is not drawn again.
  const ask = useCallback((action: ActionName, session: UiSession) => setPending({ action, session }), []);
  const confirm = async (body: Record<string, string>) => {
    const p = pending;
    setPending(null);
    if (!p) return;
    setStatus(`${p.action} ${p.session.id}…`);
    const r = await act(p.action, body).catch((e: Error) => ({ ok: false, message: e.message }));
    setStatus(r.ok ? r.message : `refused: ${r.message}`);
  };

  return html`
    <header class="top">
      <h1>lanes <span class="sub">fleet</span></h1>
      <p class="meta">
        ${fleet ? html`${fleet.store.backend} store <code>${fleet.store.location}</code> · host ${fleet.host}` : ''}
        <span class=${`link link-${link}`} role="status" aria-live="polite" data-link=${link}>${linkText(link)}</span>
      </p>
      <nav aria-label="Panels">
        <a href="#tonight">Tonight</a> <a href="#sessions">Sessions</a> <a href="#claims">Claims and waits</a>
        <a href="#conflicts">Conflicts</a> <a href="#snapshots">Snapshots</a> <a href="#journal">Journal</a>
      </nav>
    </header>
    <p class="status" role="status" aria-live="polite" data-status>${status}</p>
    <main>
      ${
        fleet
          ? html`
              ${diffOf ? html`<${DiffView} session=${diffOf} onClose=${closeDiff} />` : ''}
              <${TonightPanel} report=${night.report} error=${night.error} />
              <${SessionsPanel} fleet=${fleet} spent=${spent} onAction=${ask} />
              <${ClaimsPanel} fleet=${fleet} />
              <${ConflictsPanel} fleet=${fleet} />
              <${SnapshotsPanel} fleet=${fleet} />
              <${JournalPanel} news=${news} />
            `
          : html`<p>Loading the fleet…</p>`
      }
    </main>
    ${
      pending && fleet
        ? html`<${ConfirmDialog}
            pending=${pending}
            fleet=${fleet}
            onConfirm=${confirm}
            onCancel=${() => setPending(null)}
          />`
        : ''
    }
  `;
}

/** The session a #diff=SESSION address opens (a row's Diff link, the report's, one pasted). */
function diffInHash(): string | null {
  const m = /^#diff=(.+)$/.exec(location.hash);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1]!;
  }
}

function linkText(link: Link): string {
  return link === 'live' ? 'live' : link === 'connecting' ? 'connecting…' : 'connection lost, reconnecting…';
}
