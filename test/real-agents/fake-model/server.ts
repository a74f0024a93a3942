import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as zlib from 'node:zlib';

/**
 * A local model server for the real agent CLIs (issue 12, item 5): it speaks one wire protocol
 * (the Messages API for Claude Code, the Responses API for Codex), answers the agent's main loop
 * from a script and everything else (titles, summaries, probes) with a short text, and keeps every
 * request body, so a test reads what the agent sent its model: the tool results lanes' hooks
 * shaped, the context they added.
 */

/** One scripted answer of the model: tool calls (run by the agent, results in the next request), or a final text. */
export type Turn = { tools: ToolCall[] } | { text: string };
export interface ToolCall {
  name: string;
  /** Arguments of a function tool; a string is the raw input of a free-form tool (Codex's apply_patch). */
  input: Record<string, unknown> | string;
}

/** The id the server gives call `i` of scripted turn `turn`: the agent sends it back with the tool's result. */
export const callId = (turn: number, i: number): string => `call_lanes_${turn}_${i}`;

export interface Recorded {
  method: string;
  path: string;
  /** The request's headers: which credential the agent sent (x-api-key, a bearer, an account id). */
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Whether this request was answered from the script (the agent's main loop). */
  scripted: boolean;
  /** Whether it was refused with the provider's usage-limit error (see Quota). */
  refused: boolean;
  /** When it arrived (Date.now()): how fast, and how long, an agent retries a refusal. */
  at: number;
}

/**
 * The account running out (issue 29, seat pools): once `after` scripted turns were served, every
 * model call is answered with the provider's own usage-limit error (its status, body and headers;
 * each protocol names its kinds), until the test sets `FakeModel.quota` to null again.
 */
export interface Quota {
  /** Scripted turns served before the limit is hit (0: the first model call is refused). */
  after: number;
  /** Which of the protocol's errors; absent: the protocol's subscription usage limit. */
  kind?: string;
  /** When the limit resets, Unix seconds; absent: an hour after the refusal. */
  resetsAt?: number;
  /** The account that ran out: only requests whose credential (authorization, x-api-key, x-goog-api-key) contains it; absent: all. */
  account?: string;
}

/** What a wire protocol decides for one request. */
export interface Protocol {
  /** Whether this request belongs to the agent's main loop (advances the script). */
  isMainLoop(path: string, body: Record<string, unknown>): boolean;
  /** Writes `turn` (the script's turn number `index`) as the protocol's answer to the request. */
  answer(res: ServerResponse, body: Record<string, unknown>, turn: Turn, index: number): void;
  /** Answers a request that is not part of the script (or a GET probe) so the agent carries on. */
  other(res: ServerResponse, method: string, path: string, body: Record<string, unknown>, n: number): void;
  /** The text of the tool result the agent sent back for call `id` in a request body, or null if none. */
  toolResult(body: unknown, id: string): string | null;
  /** Whether a request asks the model for an answer (what a usage limit refuses, side calls included). */
  isModelCall(method: string, path: string): boolean;
  /** Writes the provider's usage-limit error of `kind`, resetting at `resetsAt` (Unix seconds). */
  refuse(res: ServerResponse, kind: string | undefined, resetsAt: number): void;
  /**
   * A host (`host:port` of a CONNECT through this server as the agent's proxy) the protocol answers
   * itself over TLS, with the certificate it names (one the agent trusts, by NODE_EXTRA_CA_CERTS):
   * its requests then come here like any other (host header and all). Absent or null: refused.
   */
  tunnel?(host: string): { key: string; cert: string } | null;
}

export class FakeModel {
  readonly requests: Recorded[] = [];
  /**
   * Hosts the agent tried to reach elsewhere: the agent's HTTP(S)_PROXY is this server (loopback
   * excepted), which refuses every such request, so nothing leaves the machine and the test can say what was tried.
   */
  readonly egress: string[] = [];
  private server: Server | null = null;
  /** Run before the scripted turn `index` is answered: what a person does while the agent waits on its model. */
  beforeTurn: ((index: number) => Promise<void>) | null = null;
  private next = 0;

  constructor(
    private readonly protocol: Protocol,
    private readonly script: Turn[],
    private readonly name = '',
    /** The account's usage limit, if it has one; null lifts it (the reset came). */
    public quota: Quota | null = null,
  ) {}

  /** Starts listening on 127.0.0.1 (a free port) and returns the base URL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      // A client that resets the tunnel it was refused (OpenCode after its 403) is no test failure.
      socket.on('error', () => undefined);
      const tls = this.protocol.tunnel?.(req.url ?? '') ?? null;
      if (tls) {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) socket.unshift(head);
        this.server!.emit('connection', new TLSSocket(socket, { isServer: true, ...tls }));
        return;
      }
      this.egress.push(req.url ?? '?');
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    // For a person reading what an agent sent: LANES_REAL_AGENTS_DUMP=DIR keeps every request.
    const dump = process.env['LANES_REAL_AGENTS_DUMP'];
    if (dump && this.name) {
      mkdirSync(dump, { recursive: true });
      writeFileSync(join(dump, `${this.name}.requests.json`), JSON.stringify(this.requests, null, 1));
    }
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((ok) => s.close(() => ok()));
  }

  /** The main-loop requests, in order: request k carries the results of turn k-1's tool calls. */
  mainLoop(): unknown[] {
    return this.requests.filter((r) => r.scripted).map((r) => r.body);
  }

  /**
   * The result of call `i` of scripted turn `turn` as the agent sent it in its next main-loop
   * request (the model's context right after the tool ran), or null when that request lacks it.
   */
  resultOf(turn: number, i = 0): string | null {
    const next = this.mainLoop()[turn + 1];
    return next === undefined ? null : this.protocol.toolResult(next, callId(turn, i));
  }

  /** How many scripted turns were served (the script is done when it equals the script's length). */
  get served(): number {
    return this.next;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = decoded(Buffer.concat(chunks), req.headers['content-encoding']).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      body = { unparsed: raw };
    }
    const path = req.url ?? '/';
    if (/^https?:\/\//.test(path)) {
      // A plain HTTP request through this server as a proxy: refused, like a CONNECT.
      this.egress.push(new URL(path).host);
      res.writeHead(403).end();
      return;
    }
    const method = req.method ?? 'GET';
    const n = this.requests.length;
    const q = this.quota;
    const h = req.headers;
    const credential = `${h['authorization'] ?? ''} ${h['x-api-key'] ?? ''} ${h['x-goog-api-key'] ?? ''}`;
    const refused =
      q !== null &&
      this.next >= q.after &&
      (q.account === undefined || credential.includes(q.account)) &&
      this.protocol.isModelCall(method, path);
    const scripted = !refused && method === 'POST' && this.protocol.isMainLoop(path, body);
    this.requests.push({ method, path, headers: req.headers, body, scripted, refused, at: Date.now() });
    if (refused) return this.protocol.refuse(res, q.kind, q.resetsAt ?? Math.floor(Date.now() / 1000) + 3600);
    if (!scripted) return this.protocol.other(res, method, path, body, n);
    // Past the end of the script the model keeps saying it is done, so a retrying agent ends.
    const index = this.next;
    this.next += 1;
    if (this.beforeTurn) await this.beforeTurn(index);
    this.protocol.answer(res, body, this.script[index] ?? { text: 'done' }, index);
  }
}

/**
 * A request body as sent, decompressed: Codex signed in with ChatGPT sends its Responses requests
 * zstd-compressed (Node's zlib has zstd from 22.15; on older Nodes Debian's `zstd` decodes it).
 */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'gzip') return zlib.gunzipSync(body);
  if (encoding !== 'zstd') return body;
  const zstd = (zlib as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync;
  if (zstd) return zstd(body);
  const r = spawnSync('zstd', ['-d', '-c'], { input: body, maxBuffer: 64 * 1024 * 1024 });
  return r.status === 0 ? r.stdout : body;
}

/** Writes one Server-Sent Event. */
export function sse(res: ServerResponse, event: string | null, data: unknown): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}
