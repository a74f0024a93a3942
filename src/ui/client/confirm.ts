// Every action asks first, in a modal <dialog> (focus moves into it, Escape cancels), saying what
// will happen; adopting asks which live session takes the work over.
import { html } from './html.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActionName, FleetView, UiSession } from '../view-types.js';

export interface Pending {
  action: ActionName;
  session: UiSession;
}

function explain(p: Pending): string {
  const id = p.session.id;
  switch (p.action) {
    case 'snapshot':
      return `Save the uncommitted work of ${id} to a private ref (refs/lanes/snapshots/…). Its files, index and branch are not touched.`;
    case 'end':
      return `Snapshot the uncommitted work of the dead session ${id}, then end it and release its ${p.session.claims.length} claim(s). Its worktree stays.`;
    case 'adopt':
      return `Give the claims, ticket and worktree of the dead session ${id} to a live session (new fencing tokens).`;
    case 'release':
      return `Release the ${p.session.claims.length} claim(s) of the dead session ${id}, so others can take them.`;
    case 'tell':
      return `Tell the agent of ${id}: delivered through its hooks at its next tool call or turn.`;
    case 'ready':
      return `Put ${id}${p.session.ticket ? ` (${p.session.ticket})` : ''} in the landing queue with its branch as it is now. Nothing is published until someone runs lanes land --queue, which checks it first.`;
  }
}

export function ConfirmDialog(props: {
  pending: Pending;
  fleet: FleetView;
  onConfirm: (body: Record<string, string>) => void;
  onCancel: () => void;
}) {
  const { pending, fleet } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const candidates = fleet.sessions.filter(
    (s) => s.state === 'live' && s.repo === pending.session.repo && s.id !== pending.session.id,
  );
  const [into, setInto] = useState(candidates[0]?.id ?? '');
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const blocked = pending.action === 'adopt' && !into;
  const submit = (e: Event) => {
    e.preventDefault();
    if (blocked) return;
    props.onConfirm({ session: pending.session.id, ...(pending.action === 'adopt' ? { into } : {}) });
  };
  return html`
    <dialog ref=${ref} aria-labelledby="confirm-h" onCancel=${props.onCancel} onClose=${props.onCancel}>
      <form method="dialog" onSubmit=${submit}>
        <h2 id="confirm-h">${pending.action[0]?.toUpperCase()}${pending.action.slice(1)} ${pending.session.id}?</h2>
        <p>${explain(pending)}</p>
        ${
          pending.action === 'adopt'
            ? candidates.length
              ? html`<label
                  >Adopt into
                  <select value=${into} onChange=${(e: Event) => setInto((e.target as HTMLSelectElement).value)}>
                    ${candidates.map((c) => html`<option value=${c.id}>${c.id} ${c.label ?? c.ticket ?? ''}</option>`)}
                  </select>
                </label>`
              : html`<p>
                  No live session of this repository to adopt into. Run
                  <code>lanes adopt ${pending.session.id}</code> from one.
                </p>`
            : ''
        }
        <div class="buttons">
          <button type="button" onClick=${props.onCancel}>Cancel</button>
          <button type="submit" class="primary" data-confirm disabled=${blocked}>Confirm</button>
        </div>
      </form>
    </dialog>
  `;
}
