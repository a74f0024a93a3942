// Who holds what and who waits for whom; waits refused because they would close a cycle.
import { html } from './html.js';
import { memo } from 'preact/compat';
import { useState } from 'preact/hooks';
import type { FleetView, UiClaim, UiSession } from '../view-types.js';
import { Time, TimedText, age, clock, dayOf, detailsText, shownState } from './format.js';
import { Path } from './path.js';
import { Who } from './who.js';

const SHOWN = 100;

export function ClaimsPanel(props: { fleet: FleetView }) {
  const { fleet } = props;
  const [all, setAll] = useState(false);
  // Newest first: what just changed is on top, within the rows shown.
  const held = fleet.sessions
    .flatMap((s) => s.claims.map((c) => ({ claim: c, session: s })))
    .sort((a, b) => b.claim.since - a.claim.since);
  const shown = all ? held : held.slice(0, SHOWN);
  return html`
    <section id="claims" aria-labelledby="claims-h">
      <h2 id="claims-h">Claims and waits</h2>
      <div class="table-wrap" role="region" aria-label="Claims" tabindex="0">
        <table class="stack compact">
          <caption>
            Claims (${held.length})
          </caption>
          <thead>
            <tr>
              <th scope="col">Resource</th>
              <th scope="col">Token</th>
              <th scope="col">Held by</th>
              <th scope="col">State</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            ${shown.map((c) => html`<${ClaimRow} c=${c.claim} s=${c.session} at=${fleet.at} />`)}
          </tbody>
        </table>
      </div>
      ${
        held.length > shown.length
          ? html`<button type="button" onClick=${() => setAll(true)}>Show all ${held.length} claims</button>`
          : ''
      }
      <h3>Waiting</h3>
      ${
        fleet.waits.length === 0
          ? html`<p>Nobody waits.</p>`
          : html`<ul class="waits">
              ${fleet.waits.map(
                (w) =>
                  html`<li data-wait=${w.session}>
                    <${Who} id=${w.session} fleet=${fleet} />${w.live ? '' : ' (process gone)'}
                    ${' waits since '}<${Time} at=${w.since} />${' for'}
                    ${w.resources.map((r) => html` <code>${r}</code>`)}
                    ${
                      w.heldBy.length
                        ? html`, held by
                          ${w.heldBy.map(
                            (h) =>
                              html` <${Who} id=${h.session} fleet=${fleet} /> (${h.state}, <code>${h.resource}</code>)`,
                          )}`
                        : ''
                    }
                  </li>`,
              )}
            </ul>`
      }
      <h3>Refused waits (deadlock cycles)</h3>
      ${
        fleet.cycles.length === 0
          ? html`<p>None recently.</p>`
          : html`<ul class="cycles">
              ${fleet.cycles.map(
                (c) =>
                  html`<li data-cycle=${c.seq}>
                    <span class="state state-dead">cycle refused</span> <${Time} at=${c.at} />:${' '}
                    <${Who} id=${c.session} fleet=${fleet} />${' '}
                    <${TimedText} text=${c.text} times=${c.times} />
                    <details>
                      <summary>details</summary>
                      <code>${c.subject}</code> ${detailsText(c.details)}
                    </details>
                  </li>`,
              )}
            </ul>`
      }
    </section>
  `;
}

interface ClaimRowProps {
  c: UiClaim;
  /** Its holder: the same object while that session is unchanged (share.ts). */
  s: UiSession;
  at: number;
}

/** A claim's row, drawn again only when its holder changed or its age reads differently. */
const ClaimRow = memo(
  (props: ClaimRowProps) => {
    const { c, s } = props;
    // The holder and its state in cells of their own: read or copied, they never run together.
    return html`<tr data-claim=${c.resource}>
      <th scope="row" class="line"><${Path} path=${c.resource} /></th>
      <td data-label="Token">#${c.token}</td>
      <td class="line" data-label="Held by" data-held-by><${Who} id=${s.id} session=${s} /></td>
      <td data-label="State" data-claim-state>
        <span class=${`state state-${shownState(s)}`}>${shownState(s)}</span>
      </td>
      <td data-label="Since" title=${clock(c.since)}>${age(c.since, props.at)}</td>
    </tr>`;
  },
  (a: ClaimRowProps, b: ClaimRowProps) =>
    a.c === b.c &&
    a.s === b.s &&
    age(a.c.since, a.at) === age(b.c.since, b.at) &&
    // Its moment (the cell's title) is written against the reader's today.
    dayOf(a.at) === dayOf(b.at),
);
