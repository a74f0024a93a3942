// What keeps the dashboard to the person who started it (issue 11, item 5): a random token per run
// (as Jupyter does), the Host header checked against the address it listens on (a DNS-rebinding
// page reaches 127.0.0.1 under its own host name), the Origin checked (another site's page may
// send requests to localhost, but its Origin is its own), actions only by POST with the token in
// a header (a form or an image cannot set one: CSRF), and a strict Content-Security-Policy.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';

export const TOKEN_HEADER = 'x-lanes-token';

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The Host header values a browser sends for this server (`host:port`); loopback names all count for a loopback address. */
export function allowedHosts(listenHost: string, port: number): Set<string> {
  const names = isLoopback(listenHost) ? ['127.0.0.1', 'localhost', '[::1]'] : [bracket(listenHost)];
  // A browser leaves the default port out of Host and Origin.
  return new Set(names.flatMap((n) => (port === 80 ? [n, `${n}:80`] : [`${n}:${port}`])));
}

function bracket(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function sameToken(given: string | undefined | null, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function refuse(c: Context, status: 403 | 405, message: string): Response {
  return c.json({ error: { code: status === 403 ? 'E_FORBIDDEN' : 'E_METHOD', message } }, status);
}

export interface Guard {
  token: string;
  hosts: Set<string>;
}

/**
 * Every request: security headers; the Host must be this server's; a present Origin must be this
 * server's (a browser sends one on every POST and on cross-origin reads). The page, the API and the
 * event stream then need the token: the page and the event stream (EventSource cannot set headers)
 * in the query, the API in the header, the actions ONLY in the header and only by POST. The page's
 * script and style carry no data and are served without it.
 */
export function guard(g: Guard): MiddlewareHandler {
  return async (c, next) => {
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
    const host = c.req.header('host') ?? '';
    if (!g.hosts.has(host.toLowerCase())) return refuse(c, 403, `host ${JSON.stringify(host)} is not this dashboard`);
    const origin = c.req.header('origin');
    if (origin !== undefined && !g.hosts.has(originHost(origin)))
      return refuse(c, 403, `requests from ${JSON.stringify(origin)} are refused`);
    if (c.req.header('sec-fetch-site') === 'cross-site') return refuse(c, 403, 'cross-site requests are refused');
    const path = c.req.path;
    if (path.startsWith('/assets/') || path === '/favicon.ico') return next();
    if (path.startsWith('/api/actions/')) {
      if (c.req.method !== 'POST') return refuse(c, 405, 'actions are POST requests');
      if (!sameToken(c.req.header(TOKEN_HEADER), g.token))
        return refuse(c, 403, `an action needs the token in the ${TOKEN_HEADER} header`);
      return next();
    }
    const given = path === '/' || path === '/api/events' ? c.req.query('token') : c.req.header(TOKEN_HEADER);
    if (!sameToken(given, g.token))
      return refuse(c, 403, 'wrong or missing token: open the URL `lanes ui` printed (it changes every run)');
    return next();
  };
}

function originHost(origin: string): string {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' ? u.host.toLowerCase() : '';
  } catch {
    return '';
  }
}
