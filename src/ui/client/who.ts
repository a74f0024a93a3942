// A session wherever the page names one: its label, agent and ticket first, the id beside (as
// `lanes report` names it); an id the fleet does not know is shown as it is.
import { html } from './html.js';
import type { FleetView, UiSession } from '../view-types.js';

/** "cart totals (claude-code, SHOP-12)"; the id alone when it has no label, agent or ticket. */
export function sessionTitle(s: Pick<UiSession, 'id' | 'label' | 'agent' | 'ticket'>): string {
  // An agent's own session id starts with the agent's name: not said twice.
  const extra = [s.agent, s.ticket].filter(
    (x): x is string => !!x && x !== s.label && !(s.label === null && s.id.startsWith(`${x}:`)),
  );
  return `${s.label ?? s.id}${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

/** A session by id, looked up in the fleet, or given (a claim's holder: no search of 1,000 sessions per row). */
export function Who(props: { id: string | null; fleet?: FleetView; session?: UiSession }) {
  if (!props.id) return html`<code>?</code>`;
  const s = props.session ?? props.fleet?.sessions.find((x) => x.id === props.id);
  const title = s ? sessionTitle(s) : props.id;
  return title === props.id
    ? html`<code class="who">${props.id}</code>`
    : html`<span class="who" data-session-name=${props.id}>${title} <code class="id">${props.id}</code></span>`;
}
