// A path on the page: broken by the browser only after a `/`, never inside a name.
import { html } from './html.js';
import { pathParts } from './format.js';

export function Path(props: { path: string | null }) {
  if (!props.path) return html`–`;
  return html`<code class="path" title=${props.path}
    >${pathParts(props.path).map((p) => (typeof p === 'string' ? html`<span class="seg">${p}</span>` : html`<wbr />`))}</code
  >`;
}
