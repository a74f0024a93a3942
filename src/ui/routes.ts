// The dashboard's HTTP routes (Hono): the page, its script and style, the picture of the fleet, the
// journal, the live event stream and the actions. Every route is behind guard() (security.ts).
import { toUiJournal } from './fleet-map.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { streamSSE } from 'hono/streaming';
import { JOURNAL_KINDS, isLanesError, nightReport, parseDurationText } from '../index.js';
import type { Lanes, LanesOptions, NightReport } from '../index.js';
import { ACTIONS, httpStatusOf, runAction } from './actions.js';
import { capDiff } from './diff-view.js';
import type { Fleet } from './fleet.js';
import type { Redactor } from './redact.js';
import { reportCache } from './report-cache.js';
import { guard } from './security.js';
import type { Guard } from './security.js';
import type { ActionName, UiReport } from './view-types.js';

// The page's report type is a part of the library's: a change there that breaks it fails here.
const asUiReport = (r: NightReport): UiReport => r;

/** The largest action body (an action names a session and a snapshot or two). */
const MAX_ACTION_BODY = 64 * 1024;

export interface AppDeps {
  lanes: Lanes;
  base: LanesOptions;
  fleet: Fleet;
  redactor: Redactor;
  guard: Guard;
  /** Where the page's built script and style are (dist/ui). */
  assets?: string;
}

// The first picture of the fleet comes inside the page (a data block, which the CSP lets be since
// it never runs): the page draws without waiting for a second request.
const page = (fleetJson: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>lanes — fleet</title>
<link rel="icon" href="/assets/icon.svg">
<link rel="stylesheet" href="/assets/app.css">
<script defer src="/assets/app.js"></script>
</head>
<body><div id="app"><p>Loading the fleet…</p></div>
<script type="application/json" id="lanes-fleet">${fleetJson.replace(/</g, '\\u003c')}</script>
<noscript>The lanes dashboard needs JavaScript.</noscript>
</body>
</html>
`;

// Three lanes: the page's icon.
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0550ae"/>' +
  '<path d="M4 3v10M8 3v10M12 3v10" stroke="#fff" stroke-width="1.6"/></svg>';

function assetsDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'ui');
}

function errorBody(e: unknown) {
  return isLanesError(e)
    ? { code: e.code, message: e.message, hint: e.hint ?? null }
    : { code: 'E_INTERNAL', message: e instanceof Error ? e.message : String(e), hint: null };
}

function list(v: string | undefined): string[] | undefined {
  const items = (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
}

export function buildApp(deps: AppDeps): Hono {
  const app = new Hono();
  const dir = deps.assets ?? assetsDir();
  const cache = new Map<string, string>();
  const asset = (name: string) => cache.get(name) ?? cache.set(name, readFileSync(join(dir, name), 'utf8')).get(name)!;
  // Through the context, so the headers guard() set (CSP, nosniff, …) are on every JSON answer too.
  const json = (c: Context, text: string, status: ContentfulStatusCode = 200) =>
    c.body(text, status, { 'content-type': 'application/json; charset=utf-8' });
  const badQuery = (c: Context, param: string, message: string) =>
    c.json({ error: { code: 'E_USAGE', message: `${param}: ${message}`, hint: null, param } }, 400);
  const report = reportCache(
    async (ms) => {
      const now = await deps.lanes.now();
      return deps.redactor.json(asUiReport(await nightReport(deps.lanes, { since: now - ms })));
    },
    () => deps.fleet.generation(),
  );
  app.use('*', guard(deps.guard));
  // An action's body is a few ids: anything larger is refused before it is read whole.
  app.use(
    '/api/actions/*',
    bodyLimit({
      maxSize: MAX_ACTION_BODY,
      onError: (c) =>
        c.json(
          { error: { code: 'E_TOO_LARGE', message: `an action body is at most ${MAX_ACTION_BODY} bytes`, hint: null } },
          413,
        ),
    }),
  );
  // Whatever escapes a route is a JSON error without a stack trace, never a 500 page.
  app.onError((e, c) => c.json({ error: errorBody(e) }, 500));
  app.get('/', (c) => c.html(page(deps.fleet.json())));
  app.get('/assets/app.js', (c) => c.body(asset('app.js'), 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/assets/icon.svg', (c) => c.body(ICON, 200, { 'content-type': 'image/svg+xml' }));
  // Browsers ask for it whatever the page says.
  app.get('/favicon.ico', (c) => c.body(ICON, 200, { 'content-type': 'image/svg+xml' }));
  app.get('/assets/app.css', (c) => c.body(asset('app.css'), 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/api/fleet', (c) => json(c, deps.fleet.json()));
  // What the server did since it started (reads of the store, proofs, git reads, pictures sent):
  // an idle dashboard reads the change mark and nothing else (bench/ui-idle.mjs, test/ui).
  app.get('/api/stats', (c) => c.json(deps.fleet.stats()));
  app.get('/api/journal', async (c) => {
    const limitText = c.req.query('limit');
    if (limitText !== undefined && !/^[1-9]\d{0,3}$/.test(limitText))
      return badQuery(
        c,
        'limit',
        `expected a whole number from 1 to 1000, got ${JSON.stringify(limitText.slice(0, 40))}`,
      );
    const limit = Math.min(Number(limitText ?? 200), 1000);
    const kinds = list(c.req.query('kind'));
    const unknown = kinds?.filter((k) => !JOURNAL_KINDS.some((j) => j === k || j.startsWith(`${k}.`)));
    if (unknown?.length)
      return badQuery(
        c,
        'kind',
        `unknown kind ${JSON.stringify(unknown[0]!.slice(0, 40))}: an area (claim, session, …) or a kind (claim.grant, …)`,
      );
    const q = {
      order: 'desc' as const,
      limit,
      ...(kinds ? { kinds } : {}),
      ...(c.req.query('session') ? { session: c.req.query('session') as string } : {}),
      ...(c.req.query('ticket') ? { ticket: c.req.query('ticket') as string } : {}),
    };
    return json(c, deps.redactor.json((await deps.lanes.journal.list(q)).map(toUiJournal)));
  });
  // A session's work (`lanes diff`) for the page's diff view: ?session=ID (or label, ticket).
  app.get('/api/diff', async (c) => {
    const name = c.req.query('session') ?? '';
    if (!name.trim() || name.length > 200)
      return badQuery(
        c,
        'session',
        'expected the id, label, ticket or tmux name of a session (at most 200 characters)',
      );
    try {
      return json(c, deps.redactor.json(capDiff(await deps.lanes.sessions.diff(name, { patch: true }), name)));
    } catch (e) {
      return json(c, deps.redactor.json({ error: errorBody(e) }), httpStatusOf(e) as ContentfulStatusCode);
    }
  });
  app.get('/assets/highlight.js', (c) =>
    c.body(asset('highlight.js'), 200, { 'content-type': 'text/javascript; charset=utf-8' }),
  );
  // `lanes report` for the page's "Tonight" panel: ?since=DURATION (default 12h).
  app.get('/api/report', async (c) => {
    const sinceText = c.req.query('since') ?? '12h';
    let ms: number;
    try {
      ms = parseDurationText(sinceText, 'since');
    } catch (e) {
      return badQuery(c, 'since', (e as Error).message);
    }
    return json(c, await report(ms));
  });
  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      const queue: { event: string; data: string }[] = [{ event: 'fleet', data: deps.fleet.json() }];
      let wake: (() => void) | null = null;
      const off = deps.fleet.subscribe((event, data) => {
        // A picture is whole: one not sent yet is replaced by the newer. A page slow to read (busy
        // redrawing) otherwise had every picture of a busy fleet (~1 MB each, a few a second)
        // queued here for it, the server's memory growing as long as it lagged.
        const unsent = event === 'fleet' ? queue.findIndex((m) => m.event === 'fleet') : -1;
        if (unsent >= 0) queue.splice(unsent, 1);
        queue.push({ event, data });
        wake?.();
      });
      let open = true;
      stream.onAbort(() => {
        open = false;
        wake?.();
      });
      try {
        while (open) {
          for (let m = queue.shift(); m; m = queue.shift()) await stream.writeSSE(m);
          // Wakes on news; a comment now and then keeps proxies and the browser from closing it.
          await new Promise<void>((res) => {
            const t = setTimeout(res, 15_000);
            wake = () => {
              clearTimeout(t);
              wake = null;
              res();
            };
          });
          if (queue.length === 0 && open) await stream.write(': keep-alive\n\n');
        }
      } finally {
        off();
      }
    }),
  );
  app.post('/api/actions/:name', async (c) => {
    const name = c.req.param('name') as ActionName;
    if (!ACTIONS.includes(name)) return c.json({ error: { code: 'E_USAGE', message: `no action ${name}` } }, 404);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ error: { code: 'E_USAGE', message: 'the body must be JSON', hint: null } }, 400);
    }
    try {
      return json(c, deps.redactor.json(await runAction(deps.lanes, deps.base, deps.fleet, name, body)));
    } catch (e) {
      const error = errorBody(e);
      return json(
        c,
        deps.redactor.json({ ok: false, message: error.message, error }),
        httpStatusOf(e) as ContentfulStatusCode,
      );
    }
  });
  app.all('/api/actions/*', (c) => c.json({ error: { code: 'E_METHOD', message: 'actions are POST requests' } }, 405));
  app.notFound((c) => c.json({ error: { code: 'E_NOT_FOUND', message: `no ${c.req.path} here` } }, 404));
  return app;
}
