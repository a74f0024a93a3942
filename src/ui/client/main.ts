// The dashboard's page: one live picture of the fleet from the server's event stream.
import { render } from 'preact';
import { html } from './html.js';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(html`<${App} />`, root);
}
