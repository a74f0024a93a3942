import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { render } from 'ink';
import { createElement } from 'react';
import { openLanes } from '../../index.js';
import type { SessionView } from '../../index.js';
import { App } from './app.js';
import type { Action } from './app.js';
import { spentText, topRows } from './fleet.js';
import type { TopRow } from './fleet.js';
import { totalTokens } from '../../core/usage.js';
const SPEND_EVERY_MS = 10_000;

/** The most patch text `d` shows (a screen to page through, not a file to read). */
const TOP_PATCH_MAX = 2 * 1024 * 1024;

// `lanes top` runs this ES module (dist/top.mjs: ink and React load only here). The fleet is read
// from the store once, then anew only when its change mark moves (the page's rule): the open
// sessions, and the sessions the journal says ended or died in the window, read once each.

const WINDOW_MS = 12 * 3_600_000;
const cli = fileURLToPath(new URL('./cli.cjs', import.meta.url));

async function main(): Promise<number> {
  const lanes = await openLanes({ session: null, notice: false });
  const ended = new Map<string, SessionView>();
  let afterSeq: number | undefined;
  let mark = '';
  let spentAt = 0;
  const load = async (): Promise<{ rows: TopRow[]; store: string } | null> => {
    const m = JSON.stringify(await lanes.changes({ fleet: true }));
    // What each spent grows without the store changing: read again every SPEND_EVERY_MS.
    if (m === mark && Date.now() - spentAt < SPEND_EVERY_MS) return null;
    mark = m;
    const now = await lanes.now();
    const news = await lanes.journal.list({
      kinds: ['session.end', 'session.died'],
      ...(afterSeq !== undefined ? { afterSeq } : { since: now - WINDOW_MS }),
      limit: 5000,
    });
    if (news.length) afterSeq = news[news.length - 1]!.seq;
    for (const e of news) if (e.session) ended.delete(e.session);
    const open = await lanes.sessions.list();
    const openIds = new Set(open.map((s) => s.id));
    for (const e of news)
      if (e.session && !openIds.has(e.session) && !ended.has(e.session))
        ended.set(e.session, await lanes.sessions.get(e.session));
    // Each session's pull request (lanes pr) with its checks as last asked of gh (the clock below).
    const prs = await lanes.pullRequests.list({ all: true }).catch(() => ({ pullRequests: [] }));
    const prOf = new Map(prs.pullRequests.map((p) => [p.session, `PR ${p.text}`]));
    const shown = [...open, ...ended.values()];
    spentAt = Date.now();
    const spend = await lanes.sessions.spend(shown, now).catch(() => null);
    const spentOf = new Map(
      (spend?.sessions ?? [])
        .filter((x) => x.measured)
        .map((x) => [x.session, spentText(x.costUsd, totalTokens(x.tokens), x.unpriced.length > 0)]),
    );
    return { rows: topRows(shown, now, prOf, spentOf), store: lanes.storeInfo.location };
  };
  // Output up to 64 MiB (a session's patch can be a lockfile's): spawnSync's default of 1 MiB killed
  // the child and showed nothing.
  const run = (args: string[], width?: number) =>
    spawnSync(process.execPath, [cli, ...args], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1', ...(width ? { COLUMNS: String(width) } : {}) },
    });
  const props = {
    load,
    everyMs: Number(process.env['LANES_TOP_EVERY_MS']) || 1000,
    stop: async (row: TopRow) => {
      const r = run(['stop', row.id]);
      return (r.stdout || r.stderr).trim().split('\n').pop() ?? '';
    },
    report: async (width: number) => {
      const r = run(['report'], width);
      return r.stdout || r.stderr;
    },
    work: async (row: TopRow) => {
      const [p] = await lanes.sessions.progress([row.id]);
      // Its files and counts, then the patch itself (the page's diff view shows the same).
      let r = run(['diff', row.id, '--stat', '--patch']);
      let tail = '';
      // A patch too large to page through here: the files and counts, and where to read it whole.
      if (r.status !== 0 || r.stdout.length > TOP_PATCH_MAX) {
        r = run(['diff', row.id, '--stat']);
        tail = `\n(the patch is too large for lanes top: lanes diff ${row.id})\n`;
      }
      const head = p
        ? `${p.worktree}\nbranch ${p.branch ?? '(detached)'}: ${p.uncommitted} uncommitted file(s)${p.ahead !== null ? `, ${p.ahead} commit(s) ahead of ${p.target}` : ''}\n\n`
        : 'its worktree is not on this machine\n\n';
      return head + (r.status === 0 ? r.stdout + tail : r.stderr);
    },
  };
  // Open pull requests' checks asked of gh once a minute; a change is journaled, so the fleet's
  // change mark moves and the rows are read again.
  const askGh = setInterval(() => {
    lanes.pullRequests.list({ all: true, refresh: true, minAgeMs: 60_000 }).catch(() => undefined);
  }, 60_000);
  askGh.unref();
  for (;;) {
    const chosen: { action: Action } = { action: { kind: 'quit' } };
    const app = render(createElement(App, { ...props, done: (a: Action) => (chosen.action = a) }), {
      exitOnCtrlC: true,
    });
    await app.waitUntilExit();
    const action = chosen.action;
    if (action.kind === 'quit') break;
    // Attach: tmux takes the terminal; back to top when the person detaches.
    const name = action.row.terminal!.slice(5);
    spawnSync('tmux', [process.env['TMUX'] ? 'switch-client' : 'attach-session', '-t', `=${name}`], {
      stdio: 'inherit',
    });
    mark = '';
  }
  await lanes.close({ heartbeat: false });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`lanes top: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
