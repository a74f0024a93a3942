// Snapshots per session, newest first, each with the command that restores it.
import { html } from './html.js';
import { memo } from 'preact/compat';
import type { FleetView } from '../view-types.js';
import { Time } from './format.js';

function Snapshots(props: { fleet: FleetView }) {
  const { fleet } = props;
  const shown = fleet.snapshots.slice(0, 200);
  return html`
    <section id="snapshots" aria-labelledby="snapshots-h">
      <h2 id="snapshots-h">Snapshots</h2>
      ${
        shown.length === 0
          ? html`<p>No snapshot in the repositories of live sessions.</p>`
          : html`<div class="table-wrap" role="region" aria-label="Snapshots" tabindex="0">
              <table class="stack">
                <caption>
                  Snapshots (${fleet.snapshots.length})
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Session</th>
                    <th scope="col">#</th>
                    <th scope="col">Taken</th>
                    <th scope="col">Why</th>
                    <th scope="col">Restore with</th>
                  </tr>
                </thead>
                <tbody>
                  ${shown.map(
                    (s) =>
                      html`<tr data-snapshot=${s.ref}>
                        <th scope="row"><code>${s.owner}</code> <span class="sub">${s.repoName}</span></th>
                        <td data-label="#">${s.n}</td>
                        <td data-label="Taken"><${Time} at=${s.time * 1000} /></td>
                        <td data-label="Why">${s.subject.replace(/^lanes snapshot of [^:]*: /, '')}</td>
                        <td data-label="Restore with"><code class="cmd">${s.restore}</code></td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
  `;
}

/** Drawn again when the snapshots changed (the same list while unchanged, share.ts), and once a minute (the moments). */
export const SnapshotsPanel = memo(
  Snapshots,
  (a: { fleet: FleetView }, b: { fleet: FleetView }) =>
    a.fleet.snapshots === b.fleet.snapshots && Math.floor(a.fleet.at / 60_000) === Math.floor(b.fleet.at / 60_000),
);
