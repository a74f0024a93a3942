import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { EXIT, LanesError } from '../../core/errors.js';
import { MAX_HANDOFF_BYTES } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson } from '../output.js';

/** Reads a file or stdin, refusing (without reading it all) anything over the handoff limit. */
function readInput(source: string): Buffer {
  let fd: number;
  try {
    fd = source === '-' ? 0 : openSync(source, 'r');
  } catch (e) {
    throw new LanesError(
      'E_NOT_FOUND',
      `cannot read ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { hint: 'name a readable file, or - for stdin' },
    );
  }
  try {
    if (source !== '-' && fstatSync(fd).isDirectory())
      throw new LanesError('E_USAGE', `${source} is a directory`, { hint: 'name a file' });
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(1 << 16);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        if ((e as NodeJS.ErrnoException).code === 'EOF') break;
        throw e;
      }
      if (n === 0) break;
      total += n;
      if (total > MAX_HANDOFF_BYTES) {
        throw new LanesError(
          'E_TOO_LARGE',
          `the input is over ${MAX_HANDOFF_BYTES} bytes (16 MiB), the handoff limit`,
          { hint: 'hand over a file path (lanes path NAME) instead of the contents; nothing was written' },
        );
      }
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks);
  } finally {
    if (source !== '-') closeSync(fd);
  }
}

export const command: CommandSpec = {
  name: 'handoff',
  summary: "Hand data between steps of a session (or to another session) with the writer's identity stamped in.",
  usage: 'handoff put NAME [FILE|-] | handoff get NAME [--from SESSION] [--session S] [--json]',
  description: [
    "put writes FILE (or stdin) atomically into this session's private directory (0700, files 0600), in an",
    'envelope holding the session id, pid, host, cwd, a sequence number, the time and a SHA-256.',
    'get prints the payload byte-exact after proving it: written by this session (or by --from SESSION)',
    'and intact. A wrong owner or a torn/corrupt file exits 4; a missing handoff exits 1.',
    `NAME: 1-128 of A-Z a-z 0-9 . _ - without a leading dot. Payload limit: ${MAX_HANDOFF_BYTES} bytes (16 MiB).`,
  ].join('\n'),
  options: {
    from: { type: 'string', arg: 'SESSION', help: 'get: read the handoff written by SESSION' },
    session: { type: 'string', arg: 'S', help: 'act as session S instead of $LANES_SESSION' },
  },
  minPositionals: 2,
  maxPositionals: 3,
  examples: [
    'echo \'{"step":3}\' | lanes handoff put meta.json',
    'lanes handoff get meta.json',
    'lanes handoff get plan.md --from s-01h9x2k3m4',
  ],
  async run(args, io) {
    const [action, name, source] = args.positionals;
    const lanes = await io.lanes();
    const session = str(args.values['session']);
    if (action === 'put') {
      if (args.values['from'] !== undefined) throw usageError(this, '--from goes with get');
      const written = await lanes.handoffs.put(name ?? '', readInput(source ?? '-'), session ? { session } : {});
      if (io.json) printJson(io.stdout, written);
      else io.stderr(`wrote ${written.path} (seq ${written.seq}, ${written.size} bytes)\n`);
      return EXIT.ok;
    }
    if (action === 'get') {
      if (source !== undefined) throw usageError(this, 'get takes only NAME');
      const from = str(args.values['from']);
      const got = await lanes.handoffs.get(name ?? '', { ...(from ? { from } : {}), ...(session ? { session } : {}) });
      if (io.json)
        printJson(io.stdout, { path: got.path, header: got.header, payloadBase64: got.payload.toString('base64') });
      else process.stdout.write(got.payload);
      return EXIT.ok;
    }
    throw usageError(this, `unknown action ${JSON.stringify(action)}: use put or get`);
  },
};
