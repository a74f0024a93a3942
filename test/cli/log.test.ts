// lanes log on both stores, through the real CLI: what each decision leaves in the journal, the
// readable and --json forms, --since by sequence number and by time, filters, bad input, and
// --follow showing another process' decisions while they happen, ending cleanly on Ctrl-C.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesChild, lanesEnv, tmp } from '../helpers/env.js';
import { PG_URL, pgSchemaUrl } from '../helpers/pg.js';

interface Entry {
  seq: number;
  kind: string;
  session: string | null;
  ticket: string | null;
  subject: string;
  details: Record<string, unknown>;
}

const lines = (text: string): Entry[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);

const stores: [string, () => Promise<Record<string, string>>][] = [['sqlite', async () => lanesEnv(tmp())]];
if (PG_URL)
  stores.push([
    'postgres',
    async () => {
      const { url, drop } = pgSchemaUrl();
      after(drop);
      return { ...lanesEnv(tmp()), LANES_STORE: url };
    },
  ]);

for (const [name, makeEnv] of stores)
  describe(`lanes log (${name})`, () => {
    test('records each decision once, in order; filters; --since SEQ resumes without repeats; bad input exits 2', async () => {
      const env = await makeEnv();
      const repo = gitRepo();
      const start = async (ticket: string) =>
        (await lanes(['start', '--ticket', ticket, '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
      const a = await start('T-1');
      const b = await start('T-2');
      const as = (id: string) => ({ env: { ...env, LANES_SESSION: id }, cwd: repo });
      assert.equal((await lanes(['claim', 'path:src/ü 🙂.ts'], as(a))).code, 0);
      assert.equal((await lanes(['claim', 'path:src/'], as(b))).code, 3);
      assert.equal((await lanes(['release', 'path:src/ü 🙂.ts'], as(a))).code, 0);
      assert.equal((await lanes(['end', '--force', b, '--reason', 'done for today'], { env, cwd: repo })).code, 0);

      const all = lines((await lanes(['log', '--json'], { env, cwd: repo })).stdout);
      assert.deepEqual(
        all.map((e) => [e.kind, e.session]),
        [
          // Each start claims its ticket in the same transaction.
          ['session.start', a],
          ['claim.grant', a],
          ['session.start', b],
          ['claim.grant', b],
          ['claim.grant', a],
          ['claim.refuse', b],
          ['claim.release', a],
          ['session.end', b],
        ],
      );
      assert.equal(all[1]!.subject, 'ticket:T-1');
      assert.equal(all[4]!.subject, 'path:src/ü 🙂.ts');
      assert.deepEqual(
        (all[5]!.details['heldBy'] as { session: string }[]).map((h) => h.session),
        [a],
      );
      assert.equal(all[7]!.details['reason'], 'done for today');

      const text = await lanes(['log'], { env, cwd: repo });
      assert.match(text.stdout, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  #\d+ +session\.start/m);
      assert.match(text.stdout, new RegExp(`claim\\.refuse +${b} \\[T-2\\]  refused path:src/: held by ${a}`));

      const after2 = lines((await lanes(['log', '--json', '--since', String(all[1]!.seq)], { env, cwd: repo })).stdout);
      assert.deepEqual(
        after2.map((e) => e.seq),
        all.slice(2).map((e) => e.seq),
      );
      const claimsOnly = lines(
        (await lanes(['log', '--json', '--kind', 'claim', '--session', a], { env, cwd: repo })).stdout,
      );
      assert.deepEqual(
        claimsOnly.map((e) => e.kind),
        ['claim.grant', 'claim.grant', 'claim.release'],
      );
      const byTicket = lines((await lanes(['log', '--json', '--ticket', 'T-2'], { env, cwd: repo })).stdout);
      assert.ok(byTicket.length >= 2 && byTicket.every((e) => e.ticket === 'T-2'));
      assert.equal(
        lines((await lanes(['log', '--json', '--since', '1h'], { env, cwd: repo })).stdout).length,
        all.length,
      );
      assert.equal(lines((await lanes(['log', '--json', '--limit', '2'], { env, cwd: repo })).stdout).length, 2);

      // The columns stand still across #9 and #10: the kind starts at one offset on every line.
      for (const r of ['lock:x', 'lock:y']) assert.equal((await lanes(['claim', r], as(a))).code, 0);
      const lines10 = (await lanes(['log'], { env, cwd: repo })).stdout.trim().split('\n');
      assert.ok(lines10.length >= 10, `${lines10.length} entries`);
      const at = lines10.map((l) => l.search(/(session|claim)\./));
      assert.ok(
        at.every((x) => x === at[0]),
        at.join(' '),
      );

      for (const bad of [
        ['--since', '5'],
        ['--since', 'yesterday'],
        ['--kind', 'nope'],
        ['--limit', '0'],
        ['--limit', '-3'],
      ]) {
        // --since 5 is a valid sequence number: it must succeed; the rest are usage errors.
        const r = await lanes(['log', ...bad], { env, cwd: repo });
        if (bad[1] === '5') assert.equal(r.code, 0, r.stderr);
        else {
          assert.equal(r.code, 2, `${bad.join(' ')}: ${r.stderr}`);
          assert.match(r.stderr, /lanes: error: [\s\S]*\n  fix: /);
        }
      }
    });

    test("--follow shows another process' decisions as they happen and ends on Ctrl-C with exit 0", async () => {
      const env = await makeEnv();
      const repo = gitRepo();
      const follower = lanesChild(['log', '--follow', '--json', '--kind', 'claim'], { env, cwd: repo });
      const id = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
      const as = { env: { ...env, LANES_SESSION: id }, cwd: repo };
      for (let i = 0; i < 5; i++) assert.equal((await lanes(['claim', `ticket:F-${i}`], as)).code, 0);
      await follower.waitFor(/"subject":"ticket:F-4"/);
      assert.equal((await lanes(['release', 'ticket:F-0'], as)).code, 0);
      await follower.waitFor(/"kind":"claim.release"/);
      follower.proc.kill('SIGINT');
      const { code } = await follower.exited;
      assert.equal(code, 0, follower.stderr);
      const seen = lines(follower.stdout);
      assert.deepEqual(
        seen.map((e) => e.subject),
        ['ticket:F-0', 'ticket:F-1', 'ticket:F-2', 'ticket:F-3', 'ticket:F-4', 'ticket:F-0'],
        'every claim once, in order, no session entries',
      );
    });
  });
