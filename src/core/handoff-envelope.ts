import { crypto } from './builtins.js';
import { LanesError } from './errors.js';

// The envelope is a text header followed by the payload's raw bytes, so any payload (NUL, emoji,
// right-to-left text, binary) round-trips byte-exact and the header stays readable with `head -2`.
export const ENVELOPE_MAGIC = 'lanes-handoff/1\n';
export const ENVELOPE_VERSION = 1;

export interface EnvelopeHeader {
  v: number;
  session: string;
  pid: number;
  host: string;
  cwd: string;
  seq: number;
  writtenAt: string;
  size: number;
  sha256: string;
}

export interface Envelope {
  header: EnvelopeHeader;
  payload: Buffer;
}

export function sha256(data: Buffer): string {
  return crypto().createHash('sha256').update(data).digest('hex');
}

export function encodeEnvelope(header: Omit<EnvelopeHeader, 'v' | 'size' | 'sha256'>, payload: Buffer): Buffer {
  const full: EnvelopeHeader = { v: ENVELOPE_VERSION, ...header, size: payload.length, sha256: sha256(payload) };
  return Buffer.concat([Buffer.from(ENVELOPE_MAGIC + JSON.stringify(full) + '\n', 'utf8'), payload]);
}

function corrupt(path: string, why: string): LanesError {
  return new LanesError('E_INTEGRITY', `handoff ${path} is torn or corrupt: ${why}`, {
    hint: 'the writer must write it again (`lanes handoff put`); never use its contents',
    details: { path },
  });
}

/** Decodes and checks length and checksum; says nothing yet about who wrote it. */
export function decodeEnvelope(bytes: Buffer, path: string): Envelope {
  const magic = Buffer.from(ENVELOPE_MAGIC, 'utf8');
  if (bytes.length < magic.length || !bytes.subarray(0, magic.length).equals(magic)) {
    throw corrupt(path, 'it does not start with a lanes envelope header');
  }
  const end = bytes.indexOf(0x0a, magic.length);
  if (end < 0) throw corrupt(path, 'the header line is cut off');
  let header: EnvelopeHeader;
  try {
    header = JSON.parse(bytes.subarray(magic.length, end).toString('utf8')) as EnvelopeHeader;
  } catch {
    throw corrupt(path, 'the header is not valid JSON');
  }
  if (
    typeof header !== 'object' ||
    header === null ||
    typeof header.session !== 'string' ||
    typeof header.sha256 !== 'string' ||
    typeof header.size !== 'number'
  ) {
    throw corrupt(path, 'the header lacks session, size or sha256');
  }
  if (header.v !== ENVELOPE_VERSION)
    throw corrupt(path, `envelope version ${String(header.v)} is not ${ENVELOPE_VERSION}`);
  const payload = bytes.subarray(end + 1);
  if (payload.length !== header.size)
    throw corrupt(path, `the payload has ${payload.length} bytes, the header says ${header.size}`);
  if (sha256(payload) !== header.sha256) throw corrupt(path, 'the payload does not match its SHA-256');
  return { header, payload };
}

/** The identity check every reader makes: a wrong owner is an error, never a silent success. */
export function assertOwner(env: Envelope, expectedSession: string, path: string): void {
  if (env.header.session !== expectedSession) {
    throw new LanesError(
      'E_WRONG_OWNER',
      `handoff ${path} was written by session ${env.header.session} (pid ${env.header.pid} on ${env.header.host}), not by ${expectedSession}`,
      {
        hint: `read it as its writer with --from ${env.header.session} if that is what you meant; otherwise the two sessions share a path and must not`,
        details: { path, expected: expectedSession, actual: env.header.session },
      },
    );
  }
}
