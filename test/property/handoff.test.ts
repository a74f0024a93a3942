import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { assertOwner, decodeEnvelope, encodeEnvelope } from '../../src/core/handoff-envelope.js';
import type { Envelope } from '../../src/core/handoff-envelope.js';
import { assertHandoffName } from '../../src/services/handoffs/handoffs.js';
import { codeOf, params } from './runs.js';

// A handoff name, as its error hint states it: 1-128 characters of A-Z a-z 0-9 . _ -, not
// starting with a dot. It names a file directly inside the session's directory, nothing else.
function nameAllowed(name: string): boolean {
  const chars = [...name];
  return (
    chars.length >= 1 && chars.length <= 128 && !name.startsWith('.') && chars.every((c) => /^[A-Za-z0-9._-]$/.test(c))
  );
}

const nameChar = fc.constantFrom(...'aZ09._-/\\ :\0\n~é😀'.split(/(?:)/u), '..');
const handoffName = fc.oneof(
  { weight: 6, arbitrary: fc.array(nameChar, { maxLength: 10 }).map((a) => a.join('')) },
  { weight: 2, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 1, arbitrary: fc.integer({ min: 125, max: 131 }).map((n) => 'x'.repeat(n)) },
);

test('handoff names: exactly the documented ones pass, and each stays one file inside its directory', () => {
  const dir = '/run/lanes/s-1';
  fc.assert(
    fc.property(handoffName, (name) => {
      let accepted = true;
      try {
        assertHandoffName(name);
      } catch (e) {
        assert.equal(codeOf(e), 'E_BAD_NAME');
        accepted = false;
      }
      assert.equal(accepted, nameAllowed(name), JSON.stringify(name));
      if (accepted) {
        assert.equal(dirname(join(dir, name)), dir);
        assert.equal(basename(join(dir, name)), name);
      }
    }),
    params(),
  );
});

const header = fc.record({
  session: fc.oneof(fc.constantFrom('s-a', 'claude-code:0b9f'), fc.string({ unit: 'grapheme', maxLength: 30 })),
  pid: fc.integer({ min: 1, max: 4_194_304 }),
  host: fc.string({ unit: 'grapheme', maxLength: 20 }),
  cwd: fc.string({ unit: 'grapheme', maxLength: 40 }),
  seq: fc.nat(),
  writtenAt: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
});
const payload = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc.string({ unit: 'grapheme', maxLength: 100 }).map((s) => Buffer.from(s, 'utf8')),
  fc.constantFrom(Buffer.alloc(0), Buffer.from('\n'), Buffer.from('lanes-handoff/1\n{}\n')),
);

test('the envelope round-trips any header and payload byte-exact', () => {
  fc.assert(
    fc.property(header, payload, (h, p) => {
      const env = decodeEnvelope(encodeEnvelope(h, p), 'f');
      assert.ok(env.payload.equals(p));
      assert.deepEqual({ ...env.header }, { v: 1, ...h, size: p.length, sha256: env.header.sha256 });
      assertOwner(env, h.session, 'f');
    }),
    params(),
  );
});

/** Reads bytes as a reader does: decoded and checked against the expected writer. */
function read(bytes: Buffer, session: string): { ok: true; env: Envelope } | { ok: false; code: string } {
  try {
    const env = decodeEnvelope(bytes, 'f');
    assertOwner(env, session, 'f');
    return { ok: true, env };
  } catch (e) {
    return { ok: false, code: codeOf(e) };
  }
}

const damage = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('append' as const), extra: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), byte: fc.nat(255) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
);

type Damage = typeof damage extends fc.Arbitrary<infer D> ? D : never;

function damaged(bytes: Buffer, d: Damage): Buffer {
  const at = 'at' in d ? d.at % bytes.length : 0;
  switch (d.kind) {
    case 'truncate':
      return bytes.subarray(0, at);
    case 'flip': {
      const out = Buffer.from(bytes);
      out[at] = (out[at] ?? 0) ^ d.xor;
      return out;
    }
    case 'append':
      return Buffer.concat([bytes, Buffer.from(d.extra)]);
    case 'insert':
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([d.byte]), bytes.subarray(at)]);
    case 'delete':
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
  }
}
test('a torn or damaged envelope is refused (E_INTEGRITY or E_WRONG_OWNER), or reads back the exact payload', () => {
  fc.assert(
    fc.property(header, payload, damage, (h, p, d) => {
      const bytes = encodeEnvelope(h, p);
      const got = read(damaged(bytes, d), h.session);
      if (!got.ok) {
        assert.ok(['E_INTEGRITY', 'E_WRONG_OWNER'].includes(got.code), got.code);
        return;
      }
      // A change the reader cannot see can only have touched the header's description of the
      // writer (pid, host, cwd, time): never the payload, its length, or whose it is.
      assert.ok(got.env.payload.equals(p), `${d.kind} gave a different payload that passed its checks`);
      assert.equal(got.env.header.session, h.session);
      // Losing or adding bytes of the payload is always seen.
      if (d.kind === 'truncate' || d.kind === 'append') assert.fail(`${d.kind} was not detected`);
    }),
    params(),
  );
});

test('arbitrary bytes are refused with E_INTEGRITY, never a crash', () => {
  const magic = Buffer.from('lanes-handoff/1\n');
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (raw, withMagic) => {
      const bytes = withMagic ? Buffer.concat([magic, Buffer.from(raw)]) : Buffer.from(raw);
      const got = read(bytes, 's-a');
      if (!got.ok) assert.equal(got.code, 'E_INTEGRITY');
    }),
    params(),
  );
});
