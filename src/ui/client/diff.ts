// A session's work on the page (issue 49, item 1): what `lanes diff` shows — the files it changed
// against the point its branch left the main branch, committed and uncommitted, and each file's
// patch, coloured by highlight.js (highlight.ts, loaded the first time a diff is opened). Opened
// from a session's row, the night's report, or a link: #diff=SESSION.
import { html } from './html.js';
import { memo } from 'preact/compat';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { UiDiff, UiDiffFile } from '../view-types.js';
import { fetchDiff } from './api.js';
import { Path } from './path.js';
import { TellBox } from './tell-box.js';

type Highlight = (lines: string[], path: string) => string[] | null;
const LETTER = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R' } as const;

let loading: Promise<Highlight | null> | null = null;
/** highlight.js, read once: a page without it (blocked, failed) shows the patch uncoloured. */
function highlighter(): Promise<Highlight | null> {
  loading ??= new Promise((resolve) => {
    const script = document.createElement('script');
    script.src = '/assets/highlight.js';
    script.onload = () => resolve((globalThis as { lanesHighlight?: Highlight }).lanesHighlight ?? null);
    script.onerror = () => resolve(null);
    document.head.append(script);
  });
  return loading;
}

export function DiffView(props: { session: string; onClose: () => void }) {
  const [diff, setDiff] = useState<UiDiff | null>(null);
  const [error, setError] = useState('');
  const [highlight, setHighlight] = useState<Highlight | null>(null);
  const [draft, setDraft] = useState({ text: '', n: 0 });
  // The same function in every drawing: the memoized patches are not drawn again for it.
  const comment = useCallback((at: string, code: string) => {
    setDraft((d) => ({ text: `On ${at} (${JSON.stringify(code.trim().slice(0, 80))}): `, n: d.n + 1 }));
  }, []);
  useEffect(() => {
    let live = true;
    setDiff(null);
    setError('');
    fetchDiff(props.session)
      .then((d) => live && setDiff(d))
      .catch((e: Error) => live && setError(e.message));
    void highlighter().then((h) => live && h && setHighlight(() => h));
    // Opened from a row far down the page: the view comes into sight, its heading focused.
    const heading = document.getElementById('diff-h');
    heading?.scrollIntoView({ block: 'start' });
    heading?.focus({ preventScroll: true });
    return () => {
      live = false;
    };
  }, [props.session]);
  return html`
    <section id="diff" class="diff-view" aria-labelledby="diff-h" data-diff=${props.session}>
      <h2 id="diff-h" tabindex="-1">
        Work of <code>${props.session}</code>
        <button type="button" class="close" onClick=${props.onClose} aria-label="Close the diff">Close</button>
      </h2>
      ${error ? html`<p class="error" role="alert" data-diff-error>${error}</p>` : ''}
      ${!diff && !error ? html`<p>Reading the session's work…</p>` : ''}
      <${TellBox} session=${props.session} draft=${draft} />
      ${diff ? html`<${Work} diff=${diff} highlight=${highlight} onComment=${comment} />` : ''}
    </section>
  `;
}

type OnComment = (at: string, code: string) => void;

function Work(props: { diff: UiDiff; highlight: Highlight | null; onComment: OnComment }) {
  const d = props.diff;
  const uncommitted = d.files.filter((f) => f.uncommitted).length;
  const from =
    d.source === 'worktree'
      ? html`its worktree <${Path} path=${d.worktree} />${d.branch ? ` on ${short(d.branch)}` : ' (detached HEAD)'}`
      : `its branch ${short(d.branch) ?? '?'}${d.snapshot ? ` and last snapshot ${d.snapshot}` : ''}`;
  return html`
    <p data-diff-heading>
      From ${from},${' '}
      ${d.target ? `against ${d.target} at ${d.base.slice(0, 10)} (merge-base)` : 'against its HEAD'}:${' '}
      ${d.files.length} file(s) changed, ${uncommitted} uncommitted
    </p>
    ${
      d.notes.length
        ? html`<ul class="notes">
            ${d.notes.map((n) => html`<li data-diff-note>${n}</li>`)}
          </ul>`
        : ''
    }
    ${
      d.files.length === 0
        ? html`<p>No changes.</p>`
        : html`<div class="table-wrap" role="region" aria-label="Files changed" tabindex="0">
              <table class="stack compact">
                <caption>
                  Files changed (${d.files.length})
                </caption>
                <thead>
                  <tr>
                    <th scope="col">File</th>
                    <th scope="col">Change</th>
                    <th scope="col">Lines</th>
                  </tr>
                </thead>
                <tbody>
                  ${d.files.map(
                    (f, i) =>
                      html`<tr data-diff-file=${f.path}>
                        <th scope="row">
                          <a href=${`#diff-file-${i}`}><${Path} path=${label(f)} /></a>
                        </th>
                        <td data-label="Change">${f.status}${f.uncommitted ? ' · uncommitted' : ''}</td>
                        <td data-label="Lines">${f.binary ? 'binary' : html`<${Counts} f=${f} />`}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            ${d.files.map(
              (f, i) => html`<${FilePatch} f=${f} n=${i} highlight=${props.highlight} onComment=${props.onComment} />`,
            )}`
    }
  `;
}

/**
 * A file's patch, coloured once: the page redraws every few seconds (ages move) and with every
 * picture, and colouring a 2 MB patch again each time kept the page busy (~4 s a time).
 */
const FilePatch = memo(Patch);

function Patch(props: { f: UiDiffFile; n: number; highlight: Highlight | null; onComment: OnComment }) {
  const { f } = props;
  const lines = f.hunks ? f.hunks.replace(/\n$/, '').split('\n') : [];
  const at = lineNumbers(lines);
  // One listener for the whole patch: a line clicked starts a comment on it (its file and line).
  const clicked = (e: Event) => {
    const el = (e.target as HTMLElement).closest('[data-at]');
    const n = el?.getAttribute('data-at');
    if (n) props.onComment(`${f.path}:${n}`, el?.textContent?.slice(1) ?? '');
  };
  const code = lines.map((l) => (l.startsWith('@@') || l.startsWith('\\') ? '' : l.slice(1)));
  const coloured = props.highlight && lines.length ? props.highlight(code, f.path) : null;
  return html`
    <details open class="file-patch" id=${`diff-file-${props.n}`} data-patch=${f.path}>
      <summary>
        <span class="letter">${LETTER[f.status]}</span> <code>${label(f)}</code>
        ${f.binary ? ' binary' : html` <${Counts} f=${f} />`}${f.uncommitted ? ' · uncommitted' : ''}
      </summary>
      ${
        f.patchLeftOut
          ? html`<p data-left-out>Too large for the page: <code>lanes diff</code> shows it whole.</p>`
          : lines.length === 0
            ? html`<p>${f.binary ? 'A binary file.' : 'No lines changed (a rename or a mode).'}</p>`
            : html`<pre
                class="patch"
                onClick=${clicked}
              ><code>${lines.map((l, i) => line(l, coloured?.[i], at[i]))}</code></pre>`
      }
    </details>
  `;
}

/** One line of a patch: its kind for the colours and the screen reader, its code coloured when known. */
function line(text: string, coloured: string | undefined, at: string | undefined) {
  const kind = text.startsWith('@@')
    ? 'hunk'
    : text.startsWith('+')
      ? 'add'
      : text.startsWith('-')
        ? 'del'
        : text.startsWith('\\')
          ? 'note'
          : 'ctx';
  if (kind === 'hunk' || kind === 'note') return html`<span class=${`ln ${kind}`}>${text}</span>`;
  const mark = text.slice(0, 1) || ' ';
  const body =
    coloured === undefined ? text.slice(1) : html`<span class="hl" dangerouslySetInnerHTML=${{ __html: coloured }} />`;
  return html`<span class=${`ln ${kind}`} data-line=${kind} data-at=${at}
    ><span class="mark" aria-hidden="true">${mark}</span>${body}</span
  >`;
}

function Counts(props: { f: UiDiffFile }) {
  return html`<span class="plus">+${props.f.additions}</span> <span class="minus">−${props.f.deletions}</span>`;
}

const label = (f: UiDiffFile) => (f.oldPath !== undefined ? `${f.oldPath} → ${f.path}` : f.path);
const short = (ref: string | null) => (ref ? ref.replace(/^refs\/heads\//, '') : null);

/** Each patch line's number in the file it shows (new for added and context lines, old for deleted), from the hunk headers. */
function lineNumbers(lines: string[]): (string | undefined)[] {
  let oldNo = 0;
  let newNo = 0;
  return lines.map((l) => {
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(l);
    if (h) {
      oldNo = Number(h[1]);
      newNo = Number(h[2]);
      return undefined;
    }
    if (l.startsWith('+')) return String(newNo++);
    if (l.startsWith('-')) return `${oldNo++} (before the change)`;
    if (l.startsWith('\\')) return undefined;
    oldNo++;
    return String(newNo++);
  });
}
