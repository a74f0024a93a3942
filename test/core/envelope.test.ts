import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertOwner, decodeEnvelope, encodeEnvelope } from '../../src/core/handoff-envelope.js';

const header = { session: 's-a', pid: 1, host: 'h', cwd: '/x', seq: 1, writtenAt: '2026-01-01T00:00:00Z' };

test('any bytes round-trip; checksum and length are verified', () => {
  const payload = Buffer.concat([Buffer.from('héllo 😀 שלום \0 end', 'utf8'), Buffer.from([0, 255, 10, 13])]);
  const bytes = encodeEnvelope(header, payload);
  const env = decodeEnvelope(bytes, 'f');
  assert.ok(env.payload.equals(payload));
  assert.throws(() => decodeEnvelope(bytes.subarray(0, bytes.length - 1), 'f'), { code: 'E_INTEGRITY' });
  const flipped = Buffer.from(bytes);
  flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
  assert.throws(() => decodeEnvelope(flipped, 'f'), { code: 'E_INTEGRITY' });
  assert.throws(() => decodeEnvelope(Buffer.from('{"session":"s-a"}'), 'f'), { code: 'E_INTEGRITY' });
});

test('a wrong owner is an error naming both sessions', () => {
  const env = decodeEnvelope(encodeEnvelope(header, Buffer.from('x')), 'f');
  assert.doesNotThrow(() => assertOwner(env, 's-a', 'f'));
  assert.throws(
    () => assertOwner(env, 's-b', 'f'),
    (e: Error & { code?: string }) => e.code === 'E_WRONG_OWNER' && /s-a/.test(e.message) && /s-b/.test(e.message),
  );
});
