// The journal, newest first: read from the server with the filters given, then kept current by the
// entries the event stream brings (those matching the same filters).
import { html } from './html.js';
import { useEffect, useState } from 'preact/hooks';
import type { UiJournalEntry } from '../view-types.js';
import { fetchJournal } from './api.js';
import { Time, TimedText, detailsText } from './format.js';

const AREAS = ['session', 'claim', 'gate', 'state', 'handoff', 'fence', 'hook', 'commit', 'snapshot', 'restore'];
const MORE = ['sweep', 'conflicts', 'land', 'adopt', 'doctor'];
const KEEP = 500;

interface Filter {
  kind: string;
  session: string;
  ticket: string;
}

function matches(e: UiJournalEntry, f: Filter): boolean {
  return (
    (!f.kind || e.kind === f.kind || e.kind.startsWith(`${f.kind}.`)) &&
    (!f.session || e.session === f.session) &&
    (!f.ticket || e.ticket === f.ticket)
  );
}

export function JournalPanel(props: { news: UiJournalEntry[][] }) {
  const [f, setF] = useState<Filter>({ kind: '', session: '', ticket: '' });
  const [entries, setEntries] = useState<UiJournalEntry[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    let current = true;
    fetchJournal(f)
      .then((list) => current && (setEntries(list), setError('')))
      .catch((e: Error) => current && setError(e.message));
    return () => {
      current = false;
    };
  }, [f.kind, f.session, f.ticket]);
  useEffect(() => {
    const last = props.news[props.news.length - 1];
    if (!last) return;
    setEntries((list) => {
      const top = list[0]?.seq ?? 0;
      const fresh = last.filter((e) => e.seq > top && matches(e, f)).reverse();
      return fresh.length ? [...fresh, ...list].slice(0, KEEP) : list;
    });
  }, [props.news]);
  const set = (k: keyof Filter) => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value.trim() });
  return html`
    <section id="journal" aria-labelledby="journal-h">
      <h2 id="journal-h">Journal</h2>
      ${html`
        <form
          class="filters"
          role="search"
          aria-label="Filter the journal"
          onSubmit=${(e: Event) => e.preventDefault()}
        >
          <label
            >Kind
            <select value=${f.kind} onChange=${set('kind')}>
              <option value="">all</option>
              ${[...AREAS, ...MORE].map((a) => html`<option value=${a}>${a}</option>`)}
            </select>
          </label>
          <label>Session <input type="search" value=${f.session} onChange=${set('session')} /></label>
          <label>Ticket <input type="search" value=${f.ticket} onChange=${set('ticket')} /></label>
        </form>
        ${error ? html`<p class="error">${error}</p>` : ''}
        <div class="table-wrap" role="region" aria-label="Journal entries" tabindex="0">
          <table class="journal stack compact">
            <caption>
              Newest first (${entries.length} shown)
            </caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Time</th>
                <th scope="col">Kind</th>
                <th scope="col">Session</th>
                <th scope="col">What happened</th>
              </tr>
            </thead>
            <tbody>
              ${entries.map(
                // Keyed: new entries come on top, and without keys every row below was rewritten
                // with its lower neighbour's entry (an open details moving to another entry).
                (e) =>
                  html`<tr key=${e.seq} data-seq=${e.seq} data-kind=${e.kind} class=${e.unreadable ? 'unreadable' : ''}>
                    <td data-label="#">${e.seq}</td>
                    <td data-label="Time"><${Time} at=${e.at} /></td>
                    <td data-label="Kind"><span class=${`kind kind-${e.kind.split('.')[0]}`}>${e.kind}</span></td>
                    <td data-label="Session"><code>${e.session ?? '–'}</code></td>
                    <td class="details line" data-label="What happened">
                      <${TimedText} text=${e.text} times=${e.times} />
                      <details>
                        <summary>details</summary>
                        <code>${e.subject}</code> ${detailsText(e.details)}
                      </details>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
      `}
    </section>
  `;
}
