import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { crypto } from '../../core/builtins.js';
import { join } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { assertSessionId } from '../../core/ids.js';
import { assertOwner, decodeEnvelope, encodeEnvelope } from '../../core/handoff-envelope.js';
import type { Envelope } from '../../core/handoff-envelope.js';
import { runtimeRoot } from '../../core/paths.js';
import { unknownSession } from '../context.js';
import { removeStaleTemps } from './stale-temps.js';
import type { LanesContext } from '../context.js';
import { ensurePrivateDir } from '../../core/private-dir.js';

/** Largest payload a handoff accepts (documented in the README). */
export const MAX_HANDOFF_BYTES = 16 * 1024 * 1024;
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export function assertHandoffName(name: string): string {
  if (!NAME.test(name) || name === '.' || name === '..') {
    throw new LanesError('E_BAD_NAME', `invalid handoff name ${JSON.stringify(name)}`, {
      hint: 'use 1-128 characters of A-Z a-z 0-9 . _ - not starting with a dot (no slashes, no ../)',
    });
  }
  return name;
}

function ioError(path: string, e: unknown, action: string): LanesError {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ELOOP')
    return new LanesError('E_SYMLINK', `${path} is a symlink; lanes never follows symlinks for handoffs`, {
      hint: `remove it (rm '${path}') and write the handoff again`,
    });
  if (err.code === 'ENOSPC' || err.code === 'EDQUOT')
    return new LanesError(
      'E_IO',
      `the disk is full: could not ${action} ${path}; nothing was changed (any earlier version is intact)`,
      { hint: 'free some space and run it again' },
    );
  return new LanesError('E_IO', `could not ${action} ${path}: ${err.code ?? err.message}`, { cause: e });
}

/**
 * Writes bytes atomically and privately: a temp file created exclusively (O_EXCL, O_NOFOLLOW,
 * 0600) in the same directory, fsync, rename over the target, fsync of the directory. A reader
 * sees the old file or the new one, never a mix; a crash leaves at most a stray temp file.
 */
export function writeAtomic(dir: string, name: string, bytes: Buffer): string {
  const target = join(dir, name);
  const tmp = join(dir, `.${name}.${process.pid}.${crypto().randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    let isLink = false;
    try {
      isLink = lstatSync(target).isSymbolicLink();
    } catch {
      /* absent: fine */
    }
    if (isLink) throw Object.assign(new Error('symlink'), { code: 'ELOOP' });
    renameSync(tmp, target);
    const dfd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
    return target;
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* never created or already renamed */
    }
    throw ioError(target, e, 'write');
  }
}

export function readNoFollow(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw ioError(path, e, 'read');
  }
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface HandoffWritten {
  path: string;
  session: string;
  seq: number;
  size: number;
  sha256: string;
}

export class HandoffService {
  constructor(private readonly ctx: LanesContext) {}

  /**
   * The session's private runtime directory (0700), created on first use; with `create: false`
   * (a reader) only checked when it exists, so a session that never wrote gets none.
   */
  dir(sessionId: string, options: { create?: boolean } = {}): string {
    const root = ensurePrivateDir(runtimeRoot(this.ctx.env));
    const dir = join(root, assertSessionId(sessionId));
    return options.create === false && !existsSync(dir) ? dir : ensurePrivateDir(dir);
  }

  /** A per-session path for a tool that must write its own file (e.g. meta.json). */
  async path(name: string, options: { session?: string } = {}): Promise<string> {
    const me = await this.ctx.requireSession(options.session);
    return join(this.dir(me.id), assertHandoffName(name));
  }

  async put(name: string, payload: Buffer | string, options: { session?: string } = {}): Promise<HandoffWritten> {
    assertHandoffName(name);
    const me = await this.ctx.requireSession(options.session);
    return this.putAt(this.dir(me.id), name, payload, me.id);
  }

  /** Writes an envelope at an explicit directory (also used to put lanes' envelope on a path shared with legacy tools). */
  putAt(dir: string, name: string, payload: Buffer | string, sessionId: string): HandoffWritten {
    const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
    if (bytes.length > MAX_HANDOFF_BYTES) {
      throw new LanesError(
        'E_TOO_LARGE',
        `handoff ${name} is ${bytes.length} bytes; the limit is ${MAX_HANDOFF_BYTES} (16 MiB)`,
        {
          hint: 'hand over a path to a file in `lanes path NAME` instead of the contents; nothing was written',
        },
      );
    }
    let seq = 1;
    try {
      const prev = readNoFollow(join(dir, name));
      if (prev) seq = decodeEnvelope(prev, join(dir, name)).header.seq + 1;
    } catch {
      /* a corrupt or foreign previous version does not block a fresh write */
    }
    const envelope = encodeEnvelope(
      {
        session: sessionId,
        pid: process.pid,
        host: this.ctx.host,
        cwd: this.ctx.cwd,
        seq,
        writtenAt: new Date().toISOString(),
      },
      bytes,
    );
    const path = writeAtomic(dir, name, envelope);
    removeStaleTemps(dir);
    const header = decodeEnvelope(envelope, path).header;
    return { path, session: sessionId, seq, size: header.size, sha256: header.sha256 };
  }

  /** Reads a handoff of the current session (or of `from`) and proves who wrote it. */
  async get(name: string, options: { from?: string; session?: string } = {}): Promise<Envelope & { path: string }> {
    assertHandoffName(name);
    let expected: string;
    if (options.from !== undefined) {
      expected = assertSessionId(options.from);
      // A reader names the writer: one the store never knew is a mistake to say, not "no handoff".
      if (!(await this.ctx.store.getSession(expected))) throw unknownSession(expected, this.ctx.store.info.location);
    } else expected = (await this.ctx.requireSession(options.session)).id;
    const dir = this.dir(expected, { create: false });
    return { ...this.getAt(dir, name, expected), path: join(dir, name) };
  }

  getAt(dir: string, name: string, expectedSession: string): Envelope {
    const path = join(dir, name);
    const bytes = readNoFollow(path);
    if (!bytes) {
      throw new LanesError(
        'E_NOT_FOUND',
        `no handoff ${name} from session ${expectedSession} (${path} does not exist)`,
        {
          hint: `the writer must run \`lanes handoff put ${name}\` first`,
        },
      );
    }
    const env = decodeEnvelope(bytes, path);
    assertOwner(env, expectedSession, path);
    return env;
  }
}
