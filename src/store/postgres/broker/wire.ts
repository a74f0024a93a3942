// The few pieces of PostgreSQL's frontend/backend protocol (version 3) the broker speaks: it splits
// byte streams into whole messages and reads one byte of a few of them, and writes the handful of
// messages a server sends a client that logs in. Every other message passes through unread.
// https://www.postgresql.org/docs/current/protocol-message-formats.html

/** One whole message: its type byte (0 for the untyped start-up packets) and all its bytes. */
export interface Message {
  type: number;
  /** The whole message as it came, type byte and length included. */
  raw: Buffer;
  /** What follows the length. */
  body: Buffer;
}

/** Start-up packet codes (the second Int32 of an untyped packet). */
export const PROTOCOL_3 = 196608;
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

/** Message types the broker looks at. */
export const T = {
  query: 0x51, // 'Q'
  sync: 0x53, // 'S' (client) / ParameterStatus (server)
  terminate: 0x58, // 'X'
  functionCall: 0x46, // 'F'
  parse: 0x50, // 'P'
  readyForQuery: 0x5a, // 'Z'
  error: 0x45, // 'E'
} as const;

/**
 * Splits a byte stream into messages. `untyped` starts it reading start-up packets (Int32 length
 * first, no type byte), as a server reads a new client; `typed()` switches to regular messages.
 */
export class MessageReader {
  private buf: Buffer = Buffer.alloc(0);
  private untyped: boolean;
  /** Bounds what one message may claim to be (a client is trusted only so far). */
  private readonly maxLength: number;

  constructor(options: { untyped?: boolean; maxLength?: number } = {}) {
    this.untyped = options.untyped ?? false;
    this.maxLength = options.maxLength ?? 1 << 30;
  }

  typed(): void {
    this.untyped = false;
  }

  /** The whole messages that `chunk` completes, in order; the rest waits for the next chunk. */
  push(chunk: Buffer): Message[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Message[] = [];
    let off = 0;
    for (;;) {
      const head = this.untyped ? 4 : 5;
      if (this.buf.length - off < head) break;
      const len = this.buf.readInt32BE(off + head - 4);
      if (len < 4 || len > this.maxLength) throw new Error(`a message claims ${len} bytes`);
      const total = len + (this.untyped ? 0 : 1);
      if (this.buf.length - off < total) break;
      const raw = this.buf.subarray(off, off + total);
      out.push({ type: this.untyped ? 0 : (raw[0] as number), raw, body: raw.subarray(head) });
      off += total;
      // Only the first packet of a connection is untyped, or the first two (an SSL refusal, then the start-up).
      if (this.untyped && raw.length >= 8 && raw.readInt32BE(4) === PROTOCOL_3) this.untyped = false;
    }
    this.buf = off === this.buf.length ? Buffer.alloc(0) : this.buf.subarray(off);
    return out;
  }
}

function typed(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstr = (s: string) => Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])]);

export const authenticationOk = (): Buffer => typed('R', Buffer.from([0, 0, 0, 0]));

export const parameterStatus = (name: string, value: string): Buffer =>
  typed('S', Buffer.concat([cstr(name), cstr(value)]));

export function backendKeyData(pid: number, secret: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeInt32BE(pid | 0, 0);
  b.writeInt32BE(secret | 0, 4);
  return typed('K', b);
}

export const readyForQuery = (status: 'I' | 'T' | 'E'): Buffer => typed('Z', Buffer.from(status, 'latin1'));

/** An ErrorResponse: severity, SQLSTATE code and message (what pg turns into an Error with .code). */
export function errorResponse(severity: 'ERROR' | 'FATAL', code: string, message: string): Buffer {
  return typed(
    'E',
    Buffer.concat([
      Buffer.from('S'),
      cstr(severity),
      Buffer.from('V'),
      cstr(severity),
      Buffer.from('C'),
      cstr(code),
      Buffer.from('M'),
      cstr(message),
      Buffer.from([0]),
    ]),
  );
}

/** The name/value pairs of a start-up packet (user, database, application_name, …). */
export function startupParameters(packet: Message): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = packet.body.subarray(4).toString('utf8').split('\0');
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) out[parts[i] as string] = parts[i + 1] as string;
  return out;
}

/** The status byte of a ReadyForQuery: I idle, T in a transaction, E in a failed transaction. */
export const readyStatus = (m: Message): string => String.fromCharCode(m.body[0] ?? 0x49);
