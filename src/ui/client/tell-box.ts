// The diff view's message box (issue 49, item 2): what the person reviewing a session's work tells
// its agent, sent as `lanes tell` sends it (delivered through the agent's hooks at its next tool
// call or turn). Clicking a line of the patch starts a comment on that line.
import { html } from './html.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { act } from './api.js';

export function TellBox(props: { session: string; draft: { text: string; n: number } }) {
  const [text, setText] = useState('');
  const [said, setSaid] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  // A comment on a line: its place first, the cursor after it.
  useEffect(() => {
    if (!props.draft.text) return;
    setText((t) => (t ? `${t}\n${props.draft.text}` : props.draft.text));
    box.current?.focus();
  }, [props.draft.n]);
  const send = async (e: Event) => {
    e.preventDefault();
    if (!text.trim()) return;
    setSaid('Sending…');
    const r = await act('tell', { session: props.session, message: text }).catch((x: Error) => ({
      ok: false,
      message: x.message,
    }));
    setSaid(r.ok ? r.message : `refused: ${r.message}`);
    if (r.ok) setText('');
  };
  return html`
    <form class="tell-box" onSubmit=${send} data-tell-box>
      <label for="tell-text">Tell its agent (a line of the patch clicked: a comment on it)</label>
      <textarea
        id="tell-text"
        ref=${box}
        rows="3"
        maxlength="4000"
        value=${text}
        onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}
      ></textarea>
      <button type="submit" disabled=${!text.trim()}>Send</button>
      <span role="status" aria-live="polite" data-tell-said>${said}</span>
    </form>
  `;
}
