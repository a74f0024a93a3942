// The moments lanes' words name in UTC, found as instants (core/times-in.ts): the page writes them in
// its reader's zone. Made from lanes' own writers (utcMinute, describeHolder), not from copies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { utcMinute } from '../../src/core/duration.js';
import { timesIn } from '../../src/core/times-in.js';
import { describeHolder } from '../../src/services/describe.js';
import type { OwnerIdentity } from '../../src/core/process-identity.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const owner = { pid: 42, host: 'h' } as OwnerIdentity;

test('a minute in UTC and an ISO time are found as the instants they name', () => {
  const at = Date.UTC(2026, 11, 5, 21, 36);
  const text = `the seat ran out; not used until ${utcMinute(at)} (the agent), flagged at ${new Date(at + 7123).toISOString()}`;
  assert.deepEqual(timesIn(text, 0), [
    { text: '2026-12-05 21:36 UTC', at },
    { text: '2026-12-05T21:36:07.123Z', at: at + 7123 },
  ]);
  assert.deepEqual(timesIn('no moment here: pid 4800, 12:30 in a name, 2026-12-05', at), []);
});

test("a holder's time of day is put on its day by the age written after it", () => {
  const written = Date.UTC(2026, 11, 6, 0, 10);
  // Held since 23:50 the day before (20 minutes), since 00:05 (5 minutes), and for three days.
  for (const since of [written - 20 * MIN, written - 5 * MIN, written - 72 * HOUR - 3 * MIN]) {
    const text = `path:src/ is held by session s-1, ${describeHolder(owner, since, written)}`;
    const [found] = timesIn(text, written);
    assert.equal(found?.at, Math.floor(since / 1000) * 1000, text);
    assert.match(found?.text ?? '', /^\d\d:\d\d:\d\d UTC$/);
  }
  // Without its age, the time of day nearest to when the text was written.
  assert.equal(timesIn('held since 23:59:00 UTC', written)[0]?.at, Date.UTC(2026, 11, 5, 23, 59));
});
