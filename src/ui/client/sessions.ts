// Sessions by repository, with filters (repository, ticket, agent, state) and each row's actions.
import { html } from './html.js';
import { memo } from 'preact/compat';
import { useState } from 'preact/hooks';
import type { ActionName, FleetView, UiSession } from '../view-types.js';
import { Time, TimedText, age, clock, dash, dayOf, shownState } from './format.js';
import { Path } from './path.js';
import { sessionTitle } from './who.js';
import { nested } from '../../core/nesting.js';
import { collisions } from './collisions.js';

const SHOWN = 100;

interface Filter {
  repo: string;
  ticket: string;
  agent: string;
  state: string;
}

function matches(s: UiSession, f: Filter): boolean {
  return (
    (!f.repo || s.repoName === f.repo) &&
    (!f.ticket || (s.ticket ?? '').toLowerCase().includes(f.ticket.toLowerCase())) &&
    (!f.agent || (s.agent ?? '(none)') === f.agent) &&
    (!f.state || s.state === f.state)
  );
}

function groups(sessions: UiSession[]): [string, UiSession[]][] {
  const m = new Map<string, UiSession[]>();
  for (const s of sessions) m.set(s.repoName, [...(m.get(s.repoName) ?? []), s]);
  return [...m].sort(([a], [b]) => a.localeCompare(b));
}

export function SessionsPanel(props: {
  fleet: FleetView;
  /** Each measured session's spend, as the report says it (tonight.ts spentBySession). */
  spent: Map<string, string>;
  onAction: (a: ActionName, s: UiSession) => void;
}) {
  const { fleet } = props;
  const [f, setF] = useState<Filter>({ repo: '', ticket: '', agent: '', state: '' });
  const [all, setAll] = useState(false);
  const repos = [...new Set(fleet.sessions.map((s) => s.repoName))].sort();
  const agents = [...new Set(fleet.sessions.map((s) => s.agent ?? '(none)'))].sort();
  const picked = fleet.sessions.filter((s) => matches(s, f));
  const shown = all ? picked : picked.slice(0, SHOWN);
  const count = (st: string) => fleet.sessions.filter((s) => s.state === st).length;
  const set = (k: keyof Filter) => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });
  const flags = collisions(fleet.sessions, fleet.waits);
  return html`
    <section id="sessions" aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      <p class="counts">
        ${count('live')} live · ${count('dead')} dead · ${count('ended')} ended recently
        ${fleet.endedHidden ? html` (${fleet.endedHidden} older ended not shown)` : ''}
      </p>
      <form class="filters" role="search" aria-label="Filter sessions" onSubmit=${(e: Event) => e.preventDefault()}>
        <label
          >Repository
          <select value=${f.repo} onChange=${set('repo')}>
            <option value="">all</option>
            ${repos.map((r) => html`<option value=${r}>${r}</option>`)}
          </select>
        </label>
        <label>Ticket <input type="search" value=${f.ticket} onInput=${set('ticket')} /></label>
        <label
          >Agent
          <select value=${f.agent} onChange=${set('agent')}>
            <option value="">all</option>
            ${agents.map((a) => html`<option value=${a}>${a}</option>`)}
          </select>
        </label>
        <label
          >State
          <select value=${f.state} onChange=${set('state')}>
            <option value="">all</option>
            <option value="live">live</option>
            <option value="dead">dead</option>
            <option value="ended">ended</option>
          </select>
        </label>
      </form>
      ${groups(shown).map(
        ([repo, rows]) => html`
          <div class="table-wrap" role="region" aria-label=${`Sessions of ${repo}`} tabindex="0">
            <table class="sessions stack">
              <caption>
                ${repo}
                <span class="sub">(${rows.length})</span>
              </caption>
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <th scope="col">State</th>
                  <th
                    scope="col"
                    title="The last lanes call of the session (a hook, a command); liveness is proven from its owner process, not from this"
                  >
                    Last lanes call
                  </th>
                  <th scope="col">Host · pid</th>
                  <th scope="col">Worktree · branch</th>
                  <th scope="col">Work</th>
                  <th scope="col">Claims</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                ${nested(rows).map(
                  ({ row: s, depth }) =>
                    html`<${SessionRow}
                      s=${s}
                      depth=${depth}
                      host=${fleet.host}
                      at=${fleet.at}
                      flags=${flags.get(s.id) ?? NO_FLAGS}
                      spent=${props.spent.get(s.id) ?? null}
                      onAction=${props.onAction}
                    />`,
                )}
              </tbody>
            </table>
          </div>
        `,
      )}
      ${picked.length === 0 ? html`<p>No session matches.</p>` : ''}
      ${
        picked.length > shown.length
          ? html`<button type="button" onClick=${() => setAll(true)}>Show all ${picked.length} sessions</button>`
          : ''
      }
    </section>
  `;
}

function stateDetail(s: UiSession, at: number) {
  if (s.state !== 'live') return s.why;
  const proven = s.why.startsWith('unknown:')
    ? s.why
    : html`live since <${Time} at=${s.createdAt} />, pid ${s.pid} proven now`;
  return s.attention
    ? html`<${TimedText}
          text=${s.attention.why ?? ''}
          times=${s.attention.times}
        />${s.attention.why ? ' · ' : ''}${age(s.attention.at, at)} · ${proven}`
    : proven;
}

/**
 * One session: a row of the table, and below the page's breakpoint a card (style.css) whose cells
 * say what they are (data-label): its name, state, last activity and age first, its actions last.
 */
interface RowProps {
  s: UiSession;
  /** 1: a subagent's session, shown under the one it works for. */
  depth: number;
  /** This page's host, and the store's clock now. */
  host: string;
  at: number;
  flags: string[];
  /** What its agent spent (`12.3k tokens, about $0.04`), or null when not measured. */
  spent: string | null;
  onAction: (a: ActionName, s: UiSession) => void;
}

const NO_FLAGS: string[] = [];

/**
 * Drawn again only when what it shows changed: its session (the same object while unchanged,
 * share.ts), its flags, or one of its ages or moments as written (a minute, an hour, a new day).
 */
const SessionRow = memo(
  Row,
  (a: RowProps, b: RowProps) =>
    a.s === b.s &&
    a.depth === b.depth &&
    a.host === b.host &&
    a.onAction === b.onAction &&
    a.spent === b.spent &&
    a.flags.join('\n') === b.flags.join('\n') &&
    timesShown(a.s, a.at) === timesShown(b.s, b.at),
);

function timesShown(s: UiSession, at: number): string {
  const moments = [
    s.createdAt,
    s.lastSeenAt,
    ...(s.attention ? [s.attention.at, ...(s.attention.times ?? []).map((t) => t.at)] : []),
  ];
  return [
    age(s.lastSeenAt, at),
    age(s.createdAt, at),
    s.endedAt === null ? '' : age(s.endedAt, at),
    s.attention ? age(s.attention.at, at) : '',
    // A moment is written against the reader's today ("23:10", then "6 Dec, 23:10"): its text changes with the day.
    dayOf(at),
    ...moments.map((m) => clock(m, at)),
  ].join('|');
}

function Row(props: RowProps) {
  const { s, onAction, flags } = props;
  const local = s.host === props.host;
  const button = (a: ActionName, text: string) =>
    html`<button type="button" data-action=${a} aria-label=${`${text} ${s.id}`} onClick=${() => onAction(a, s)}>
      ${text}
    </button>`;
  const actions = [
    s.worktree || s.branch
      ? html`<a
          class="button-link"
          href=${`#diff=${encodeURIComponent(s.id)}`}
          data-diff-link
          aria-label=${`Diff of ${s.id}`}
          >Diff</a
        >`
      : null,
    s.state !== 'ended' && local && s.worktree ? button('snapshot', 'Snapshot') : null,
    s.ticket && (s.worktree || s.branch) ? button('ready', 'Ready') : null,
    s.state === 'dead' ? button('end', 'End') : null,
    s.state === 'dead' ? button('adopt', 'Adopt') : null,
    s.state === 'dead' && s.claims.length > 0 ? button('release', 'Release claims') : null,
  ]
    .filter(Boolean)
    // A space between buttons: their text does not run together when read or copied.
    .flatMap((b, i) => (i ? [' ', b] : [b]));
  // No-break spaces (\u00a0): a host and its pid, a claim and its token, are never broken apart.
  return html`
    <tr data-session=${s.id} data-state=${s.state} data-depth=${props.depth}>
      <th scope="row" class=${props.depth > 0 ? 'nested' : ''}>
        <div class="name">${props.depth > 0 ? html`<span aria-hidden="true">└ </span>` : ''}${sessionTitle(s)}</div>
        ${sessionTitle(s) === s.id ? '' : html`<code class="id">${s.id}</code>`}
        ${s.parent ? html`<div class="why" data-parent>subagent of ${s.parent}</div>` : ''}
        ${s.task ? html`<div class="why task" data-task title=${s.task}>task: ${firstLine(s.task)}</div>` : ''}
        ${flags.map((t) => html`<div class="flag" data-flag>⚠ ${t}</div>`)}
      </th>
      <td class="state-cell" data-label="State">
        <span class=${`state state-${shownState(s)}`} data-shown-state>${shownState(s)}</span>
        <div class="why">${stateDetail(s, props.at)}</div>
      </td>
      <td class="seen" title=${clock(s.lastSeenAt)} data-last-seen=${s.lastSeenAt} data-label="Last lanes call">
        <div>
          ${s.state === 'ended' && s.endedAt ? `ended ${age(s.endedAt, props.at)}` : age(s.lastSeenAt, props.at)}
        </div>
        <div class="age" data-age>started ${age(s.createdAt, props.at)}</div>
      </td>
      <td data-label="Host · pid">
        ${`${s.host}\u00a0·\u00a0${s.pid}`}${s.terminal ? html`<div class="why" data-terminal>${s.terminal}</div>` : ''}
      </td>
      <td data-label="Worktree · branch">
        <${Path} path=${s.worktree} />
        <div>${dash(s.branch)}</div>
      </td>
      <td class="work" data-label="Work">
        ${s.uncommitted === null ? '–' : html`<div data-uncommitted>${s.uncommitted} uncommitted</div>`}
        ${s.ahead === null ? '' : html`<div>${s.ahead} ahead of ${s.target}</div>`}
        ${props.spent ? html`<div class="why" data-spent>${props.spent}</div>` : ''}
      </td>
      <td data-label="Claims">
        ${
          s.claims.length === 0
            ? '–'
            : html`<ul class="claims">
                ${s.claims.map((c) => html`<li><${Path} path=${c.resource} />${'\u00a0'}<span class="token">#${c.token}</span></li>`)}
              </ul>`
        }
      </td>
      <td class=${actions.length ? 'actions' : 'actions none'} data-label="Actions">${actions}</td>
    </tr>
  `;
}

/** A task's first line, short enough for a table cell (the whole in its title). */
function firstLine(task: string): string {
  const line = task.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
