// Part of the store contract (contract.ts): one damaged journal row never blinds a reader (issue
// 46, item 2). Each way of damage a backend can hold is done to one row behind the store's back;
// every read (in order, newest first, filtered, followed, dumped) still answers, names that row
// unreadable with what is wrong, and gives every other row as written.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeEntry } from '../../src/services/journal/describe-entry.js';
import type { JournalEntry } from '../../src/store/journal-types.js';
import type { Store } from '../../src/store/types.js';
import { DAMAGES } from './journal-damage.js';
import type { Damage, DamageRow } from './journal-damage.js';

/** What `unreadable` says of each damage (wrong-details is readable: its kind's words must not throw). */
const SAYS: Record<Damage, RegExp | null> = {
  'not-json': /details are not JSON/,
  'json-null': /details are null .*not a JSON object/,
  array: /details are an array .*not a JSON object/,
  // session_id = 42 is kept as the text '42' (the column's affinity).
  'wrong-types': /details are bytes, not text; its time is "yesterday"; subject is bytes/,
  'wrong-details': null,
  'huge-subject': /its subject is 10485760 characters long \(cut\)/,
  'invalid-utf8': null,
};

export function journalDamageContract(world: () => { store: Store; damage: DamageRow | undefined }): void {
  it('a damaged journal row is read as unreadable, with what is wrong; every other row stays as written', async () => {
    const { store: s, damage: damageRow } = world();
    if (!damageRow) return;
    const kinds = ['session.end', 'claim.refuse', 'notify.sent'] as const;
    await s.appendJournal(
      Array.from({ length: DAMAGES.length * 2 }, (_, n) => ({
        kind: kinds[n % kinds.length]!,
        subject: `subject-${n}`,
        session: 'a',
        details: { n, reason: `r${n}` },
      })),
    );
    const written = await s.readJournal({});
    const done = new Map<number, Damage>();
    for (const [i, how] of DAMAGES.entries())
      if (await damageRow(written[i * 2]!.seq, how)) done.set(written[i * 2]!.seq, how);
    assert.ok(done.size >= 4, `at least four ways of damage are possible on every backend (${[...done.values()]})`);

    const check = (entries: JournalEntry[], what: string) => {
      for (const e of entries) {
        assert.doesNotThrow(() => describeEntry(e), `${what}: #${e.seq} can be told`);
        const how = done.get(e.seq);
        const before = written.find((w) => w.seq === e.seq)!;
        if (!how) {
          assert.deepEqual(e, before, `${what}: #${e.seq} is as written`);
          continue;
        }
        const says = SAYS[how];
        if (says) assert.match(e.unreadable ?? '', says, `${what}: #${e.seq} (${how})`);
        if (how === 'not-json' || how === 'json-null' || how === 'array') assert.deepEqual(e.details, {});
        if (how === 'huge-subject') assert.ok(e.subject.length <= 4097, 'a reader never gets 10 MB');
        if (how === 'invalid-utf8') assert.match(e.subject, /^hi/);
        assert.equal(typeof e.subject, 'string');
        assert.equal(typeof e.at, 'number');
      }
    };
    const all = await s.readJournal({});
    assert.equal(all.length, written.length, 'every row is read');
    check(all, 'in order');
    check(await s.readJournal({ order: 'desc', limit: 5 }), 'newest first');
    check(await s.readJournal({ kinds: ['session'] }), 'by kind');
    check(await s.readJournal({ session: 'a' }), 'by session');
    const followed = await s.followJournal({}, { afterSeq: 0 });
    assert.equal(followed.entries.length, written.length);
    check(followed.entries, 'followed');
    const dumped = await s.dump({ journal: true });
    assert.equal(dumped.journal?.length, written.length, 'copied whole');
  });
}
