import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The most bytes one message may have: a 16 MiB handoff (lanes' own limit) as base64 is 21.4 MiB,
 * with room for JSON escaping of text and the envelope around it.
 */
export const MAX_MESSAGE_BYTES = 48 * 1024 * 1024;

/** The JSON-RPC id of a message we cannot parse whole: the SDK writes it last, others first. */
function idOf(head: string, tail: string): string | number | null {
  const last = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail);
  const first = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head);
  const raw = last?.[1] ?? first?.[1];
  if (raw === undefined) return null;
  try {
    return JSON.parse(raw) as string | number;
  } catch {
    return null;
  }
}

/**
 * Newline-delimited JSON-RPC on stdin/stdout, as the SDK's stdio transport, with two differences
 * that keep an agent connected: a message over the limit is answered with an error (its id found
 * at either end) and skipped, never the end of the connection; and the input is kept as a list of
 * chunks joined once per message, not copied whole on every chunk.
 */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Skipping an oversized message: its first bytes, and the id once found. */
  private skipping: { head: string; tail: string } | null = null;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer): void => {
    let rest = chunk;
    for (let nl = rest.indexOf(10); nl !== -1; nl = rest.indexOf(10)) {
      this.take(rest.subarray(0, nl), true);
      rest = rest.subarray(nl + 1);
    }
    if (rest.length > 0) this.take(rest, false);
  };

  private take(piece: Buffer, ends: boolean): void {
    if (this.skipping) {
      this.skipping.tail = (this.skipping.tail + piece.toString('latin1')).slice(-512);
    } else if (this.size + piece.length > this.maxBytes) {
      const head = (this.chunks[0] ?? piece).subarray(0, 512).toString('latin1');
      this.skipping = { head, tail: piece.toString('latin1').slice(-512) };
      this.chunks = [];
      this.size = 0;
    } else {
      this.chunks.push(piece);
      this.size += piece.length;
    }
    if (!ends) return;
    if (this.skipping) {
      const { head, tail } = this.skipping;
      this.skipping = null;
      this.tooLarge(idOf(head, tail));
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    try {
      this.onmessage?.(deserializeMessage(line));
    } catch (e) {
      this.onerror?.(e as Error);
    }
  }

  private tooLarge(id: string | number | null): void {
    const mib = Math.round(this.maxBytes / 2 ** 20);
    this.onerror?.(new Error(`lanes mcp: a message over ${mib} MiB was skipped (id ${JSON.stringify(id)})`));
    void this.send({
      jsonrpc: '2.0',
      id: id as string | number,
      error: {
        code: -32600,
        message: `lanes mcp: the message is larger than ${mib} MiB, lanes' limit for one message (a handoff holds at most 16 MiB); it was not read. Send less at once.`,
      },
    } as JSONRPCMessage);
  }

  start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onErrorEvent);
    return Promise.resolve();
  }

  private readonly onErrorEvent = (e: Error): void => this.onerror?.(e);

  /** Answers written while the pipe was full, waiting for it to drain: one listener for them all. */
  private waiting: (() => void)[] = [];
  private readonly drained = (): void => {
    for (const resolve of this.waiting.splice(0)) resolve();
  };

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(serializeMessage(message))) return resolve();
      // A listener per waiting answer passed ten under a pipelining client (Node then warns on stderr).
      if (this.waiting.push(resolve) === 1) this.output.once('drain', this.drained);
    });
  }

  close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onErrorEvent);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.onclose?.();
    return Promise.resolve();
  }
}
