// `lanes ui`: the local web dashboard. Opens the library, keeps a picture of the fleet (fleet.ts),
// serves the page and its API (routes.ts) on 127.0.0.1 by default, and runs until the signal
// aborts. Built into its own bundle (dist/ui.cjs) with Hono and its Node server inside: the other
// commands never load them.
import { spawn } from 'node:child_process';
import { hostname, networkInterfaces } from 'node:os';
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { LanesError, openLanes } from '../index.js';
import type { Lanes, LanesOptions } from '../index.js';
import { Fleet } from './fleet.js';
import { redactor } from './redact.js';
import { buildApp } from './routes.js';
import { allowedHosts, isLoopback, newToken } from './security.js';
import type { Guard } from './security.js';

export interface UiOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  store?: string;
  open: boolean;
  json: boolean;
  signal: AbortSignal;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The page's built files (default: dist/ui beside the bundle). */
  assets?: string;
}

const ANY = new Set(['0.0.0.0', '::', '[::]']);

/** Host header values for a server listening on every address: each interface's, the host name, loopback. */
function everyHost(port: number): Set<string> {
  const hosts = new Set([...allowedHosts('127.0.0.1', port), `${hostname().toLowerCase()}:${port}`]);
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) for (const h of allowedHosts(a.address, port)) hosts.add(h);
  return hosts;
}

/** The strip lists of the user config, the working directory's and every live worktree's lanes.toml. */
async function stripLists(lanes: Lanes): Promise<string[]> {
  const strip = new Set((await lanes.config()).env.strip);
  const worktrees = new Set((await lanes.sessions.list()).flatMap((s) => (s.worktree ? [s.worktree] : [])));
  for (const wt of [...worktrees].slice(0, 100))
    for (const p of (await lanes.config(wt).catch(() => null))?.env.strip ?? []) strip.add(p);
  return [...strip];
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new LanesError('E_USAGE', `ui: port ${port} on ${host} is in use`, {
              hint: 'pass --port 0 for any free port',
            })
          : new LanesError('E_USAGE', `ui: cannot listen on ${host}:${port}: ${e.message}`, {
              hint: 'pass --host 127.0.0.1 (the default) or an address of this machine',
            }),
      ),
    );
    server.once('listening', () => {
      const a = server.address();
      resolve(typeof a === 'object' && a ? a.port : port);
    });
  });
}

function openBrowser(url: string, stderr: (t: string) => void): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd as string, args as string[], { detached: true, stdio: 'ignore' });
    child.on('error', () => stderr(`lanes ui: could not open a browser (${cmd}); open the URL above\n`));
    child.unref();
  } catch {
    stderr(`lanes ui: could not open a browser (${cmd}); open the URL above\n`);
  }
}

export async function serveUi(o: UiOptions): Promise<void> {
  const base: LanesOptions = { notice: false, ...(o.store ? { store: o.store } : {}) };
  const lanes = await openLanes({ ...base, session: null });
  const red = redactor(process.env, await stripLists(lanes));
  const fleet = new Fleet(lanes, { base, redactor: red });
  const g: Guard = { token: newToken(), hosts: new Set() };
  try {
    await fleet.start();
    const app = buildApp({ lanes, base, fleet, redactor: red, guard: g, ...(o.assets ? { assets: o.assets } : {}) });
    const server = serve({ fetch: app.fetch, port: o.port, hostname: o.host }) as Server;
    const port = await listen(server, o.port, o.host);
    g.hosts = ANY.has(o.host) ? everyHost(port) : allowedHosts(o.host, port);
    const urlHost = ANY.has(o.host) ? '127.0.0.1' : o.host.includes(':') ? `[${o.host}]` : o.host;
    const url = `http://${urlHost}:${port}/?token=${g.token}`;
    if (!isLoopback(o.host))
      o.stderr(
        `lanes ui: WARNING: listening on ${o.host}, reachable from other machines; anyone with the URL (it holds the token) can act on this fleet\n`,
      );
    if (o.json) o.stdout(JSON.stringify({ url, port, host: o.host }) + '\n');
    else
      o.stdout(
        `lanes ui: the fleet of ${lanes.storeInfo.location}\n  ${url}\n(the token changes every run; Ctrl-C stops)\n`,
      );
    if (o.open) openBrowser(url, o.stderr);
    await new Promise<void>((resolve) => {
      if (o.signal.aborted) resolve();
      o.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  } finally {
    await fleet.close();
    await lanes.close({ heartbeat: false });
  }
}
