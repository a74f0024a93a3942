// "Tonight": the page opens on `lanes report` — what needs a person, each with its command, and
// per ticket what landed and was refused. Read again when the fleet changes, at most every 10 s.
import { html } from './html.js';
import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { UiReport, UiReportName } from '../view-types.js';
import { fetchReport } from './api.js';
import { Time, TimedText } from './format.js';

const EVERY_MS = 10_000;
// Parts, not one template: htm drops the space where a template's line ends.
const seatWords = (s: NonNullable<UiReport['seatsOut']>[number]) => [
  `(${s.agent}, pool ${s.pool}) until `,
  html`<${Time} at=${s.until} />`,
  `${s.why ? ` · ${s.why}` : ''}${s.freeInPool === 0 ? ' · no seat of its pool left' : ''}`,
];
const who = (s: UiReportName | null) => (s ? (s.label ?? s.id) : '');

/** The report, read when the fleet changes (its version), at most every 10 s; and why it could not be read. */
export function useReport(version: number): { report: UiReport | null; error: string } {
  const [report, setReport] = useState<UiReport | null>(null);
  const [error, setError] = useState('');
  const last = useRef(0);
  useEffect(() => {
    const read = () => {
      last.current = Date.now();
      fetchReport()
        .then((r) => {
          setReport(r);
          setError('');
        })
        .catch((e: Error) => setError(`could not read the report: ${e.message}`));
    };
    const wait = Math.max(0, last.current + EVERY_MS - Date.now());
    const t = setTimeout(read, last.current === 0 ? 0 : wait);
    return () => clearTimeout(t);
  }, [version]);
  return { report, error };
}

export function TonightPanel(props: { report: UiReport | null; error: string }) {
  return html`<${Night} report=${props.report} error=${props.error} />`;
}

/** Each measured session's spend as a row shows it (`12.3k tokens, about $0.04`), by session id. */
export function spentBySession(report: UiReport | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const x of report?.spend?.sessions ?? [])
    if (x.measured && x.tokens)
      out.set(x.session, `${tokens(totalOf(x.tokens))} tokens, about $${(x.costUsd ?? 0).toFixed(2)}`);
  return out;
}

type Four = { input: number; output: number; cacheRead: number; cacheWrite: number };
const totalOf = (t: Four) => t.input + t.output + t.cacheRead + t.cacheWrite;
const tokens = (t: number) =>
  t >= 1e6 ? `${(t / 1e6).toFixed(1)}M` : t >= 1e3 ? `${(t / 1e3).toFixed(1)}k` : String(t);

/**
 * The same picture until the report or its error changes: a page that gets a new fleet every few
 * hundred ms does not redraw the night's tickets each time. Through memo, not a vnode kept in
 * useMemo and returned again: Preact 11 draws a vnode it drew already as a copy, so the kept one
 * still named as its parent the panel of the drawing that first showed it, and through it that
 * drawing's whole tree, which held the report before, and so on: every report and fleet the page
 * ever showed stayed in memory (~200 MB a minute under churn, bench/ui-memory.mjs).
 */
const Night = memo((props: { report: UiReport | null; error: string }) => night(props.report, props.error));

/** The review list: each ticket at its most pressing state, its work, its pull request, its one command. */
function Review(props: { review: NonNullable<UiReport['review']> }) {
  return html`<h3>Review (${props.review.length})</h3>
    <ul class="review">
      ${props.review.map(
        (e) =>
          html`<li data-review=${e.status} data-review-ticket=${e.ticket ?? ''}>
            <strong>${e.status}</strong>${' '}
            <a href=${`#diff=${encodeURIComponent(e.session.id)}`} data-report-diff=${e.session.id}
              >${e.ticket ?? who(e.session)}</a
            >
            ${' '}<${TimedText} text=${e.what} times=${e.times} />
            ${
              e.url && /^https?:\/\//.test(e.url)
                ? html` <a href=${e.url} target="_blank" rel="noopener noreferrer" data-pr-link>pull request</a>`
                : ''
            }
            <br /><code class="command">${e.command}</code>
          </li>`,
      )}
    </ul>`;
}

/** ` · 1.2M tokens, about $4.20`: the night's spend, when any session's was measured. */
function spent(report: UiReport): string {
  const s = report.spend;
  if (!s || !s.sessions.some((x) => x.measured)) return '';
  return ` · ${tokens(totalOf(s.total))} tokens, about $${s.costUsd.toFixed(2)}`;
}

function night(report: UiReport | null, error: string) {
  if (!report)
    return html`<section id="tonight">
      <h2>Tonight</h2>
      <p>${error || 'Reading the night…'}</p>
    </section>`;
  const c = report.counts;
  const busy = report.tickets.filter((t) => t.items.length > 0);
  return html`
    <section id="tonight" aria-labelledby="tonight-h">
      <h2 id="tonight-h">
        Tonight <span class="sub">since ${report.from ? html`<${Time} at=${report.from} />` : '?'}</span>
      </h2>
      <p data-counts>
        ${c.sessions} session(s) · ${c.landed} landed · ${c.refused} refused or denied · ${c.died} died${spent(report)}
      </p>
      ${error ? html`<p class="error">${error}</p>` : ''}
      <h3>Needs you ${report.needsYou.length ? `(${report.needsYou.length})` : ''}</h3>
      ${
        report.needsYou.length === 0
          ? html`<p data-needs-you="none">Nothing.</p>`
          : html`<ul class="needs-you">
              ${report.needsYou.map(
                (n) =>
                  html`<li data-needs-you>
                    <${TimedText} text=${n.what} times=${n.times} /><br /><code class="command">${n.command}</code>
                  </li>`,
              )}
            </ul>`
      }
      ${report.review?.length ? html`<${Review} review=${report.review} />` : ''}
      ${
        report.seatsOut?.length
          ? html`<h3>Seats out (${report.seatsOut.length})</h3>
              <ul class="seats-out">
                ${report.seatsOut.map(
                  (s) => html`<li data-seat-out=${s.name}><strong>${s.name}</strong> ${seatWords(s)}</li>`,
                )}
              </ul>`
          : ''
      }
      ${busy.map(
        (t) => html`
          <details class="ticket" data-ticket=${t.ticket ?? ''}>
            <summary>
              ${t.ticket ? html`Ticket <strong>${t.ticket}</strong>` : 'No ticket'}
              <span class="sub"
                >${` · ${t.sessions.length ? `${t.sessions.map(who).join(', ')} · ` : ''}${t.items.length} decision(s)`}</span
              >
            </summary>
            ${
              t.sessions.length
                ? html`<p class="work-links">
                    Work:
                    ${t.sessions.map(
                      (s, i) =>
                        html`${i ? ', ' : ' '}<a href=${`#diff=${encodeURIComponent(s.id)}`} data-report-diff=${s.id}
                            >${who(s)}</a
                          >`,
                    )}
                  </p>`
                : ''
            }
            <ul>
              ${t.items.slice(-10).map(
                (i) =>
                  // The space written out: htm drops it where a line ends.
                  html`<li>
                    <${Time} at=${i.at} /> <strong>${i.kind}</strong> ${who(i.session)}:${' '}
                    <${TimedText} text=${i.text} times=${i.times} />
                  </li>`,
              )}
            </ul>
          </details>
        `,
      )}
    </section>
  `;
}
