// Predicted conflicts between sessions (what `lanes conflicts` finds) and same-ticket sessions.
import { html } from './html.js';
import type { FleetView } from '../view-types.js';
import { Time } from './format.js';
import { Who } from './who.js';

export function ConflictsPanel(props: { fleet: FleetView }) {
  const { fleet } = props;
  return html`
    <section id="conflicts" aria-labelledby="conflicts-h">
      <h2 id="conflicts-h">Predicted conflicts</h2>
      ${fleet.conflicts.length === 0 ? html`<p>No repository with live sessions on this host.</p>` : ''}
      ${fleet.conflicts.map(
        (c) => html`
          <article class="repo-conflicts" data-repo=${c.repoName}>
            <h3>
              ${c.repoName} <span class="sub">against ${c.target ?? '?'}, unchanged since <${Time} at=${c.at} /></span>
            </h3>
            ${c.error ? html`<p class="error">${c.error}</p>` : ''}
            ${
              !c.error && c.pairs.length + c.sameTicket.length + c.competing.length === 0
                ? html`<p>No overlap found.</p>`
                : ''
            }
            <ul>
              ${c.pairs.map(
                (p) =>
                  html`<li data-pair=${`${p.a} ${p.b}`}>
                    <${Who} id=${p.a} fleet=${fleet} /> and <${Who} id=${p.b} fleet=${fleet} /> both changed
                    ${p.both.map((f) => html` <code>${f}</code>`)}
                    ${
                      p.conflicts.length
                        ? html`${' '}<strong class="warn"
                              >— will conflict in ${p.conflicts.map((f) => html` <code>${f}</code>`)}</strong
                            >`
                        : ''
                    }
                  </li>`,
              )}
              ${c.sameTicket.map(
                (t) =>
                  html`<li>
                    Same ticket <code>${t.ticket}</code>:
                    ${t.sessions.map((s) => html` <${Who} id=${s} fleet=${fleet} />`)}
                  </li>`,
              )}
              ${c.competing.map(
                (x) =>
                  html`<li>
                    <${Who} id=${x.session} fleet=${fleet} /> changed files ${x.target} also changed:
                    ${x.files.map((f) => html` <code>${f}</code>`)}
                  </li>`,
              )}
            </ul>
          </article>
        `,
      )}
    </section>
  `;
}
