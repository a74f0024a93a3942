import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { debugLogRanOut, reportRanOut, reportTime } from '../../src/agents/gemini/error-report.js';
import { agentLog, runRecord } from '../../src/agents/run-record.js';
import { FIXTURES, tmp } from '../helpers/env.js';

// Gemini CLI signed in with Google (Code Assist) running out of quota: what the released CLI
// (0.61.0) recorded when Google's Code Assist server (the fake of test/real-agents/gemini-login-
// seats) answered its real 429, ErrorInfo QUOTA_EXHAUSTED of cloudcode-pa.googleapis.com
// (fixtures/gemini-error-report, the paths made placeholders). "Individual quota reached. …
// Resets in 3h0m34s.": a TerminalQuotaError, reported in its TMPDIR with Gemini CLI's "💡 Tip"
// appended. "You have exhausted your capacity on this model. Your quota will reset after
// 3h0m43s.": no report; Gemini CLI waits the reset out, its debug log (GEMINI_DEBUG_LOG_FILE)
// saying so.

const HOME = '/home/dev/.gemini-seat';
const fixture = (name: string) => readFileSync(join(FIXTURES, 'gemini-error-report', name), 'utf8');
const REPORT = 'gemini-client-error-Turn.run-sendMessageStream-2026-12-03T05-59-26-141Z.json';
const INDIVIDUAL =
  'Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 3h0m34s.';
const CAPACITY = 'You have exhausted your capacity on this model. Your quota will reset after 3h0m43s.';
const H3 = (m: number, s: number) => (3 * 3600 + m * 60 + s) * 1000;

test('a Code Assist quota report: the server\'s words without Gemini CLI\'s tip, the reset "Resets in" names', () => {
  const at = reportTime(REPORT)!;
  const q = reportRanOut(fixture('code-assist-individual-0.61.0.json'), HOME, at);
  assert.deepEqual(q, { why: 'quota_exhausted', message: INDIVIDUAL, resetAt: at + H3(0, 34) });
  assert.equal(reportRanOut(fixture('code-assist-individual-0.61.0.json'), '/home/dev/.gemini-other', at), null);
});

test('a Code Assist quota Gemini CLI waits out: its debug log line, the reset its words name', () => {
  const log = fixture('code-assist-capacity-0.61.0.debug-log.txt');
  const at = Date.parse('2026-12-03T05:59:17.839Z');
  assert.deepEqual(debugLogRanOut(log, at - 60_000), {
    why: 'quota_exhausted',
    message: CAPACITY,
    resetAt: at + H3(0, 43),
  });
  assert.equal(debugLogRanOut(log, at + 1), null, 'written before the run');
  // Without a reset in its words: when Gemini CLI means to retry.
  const unnamed = log.replace(' Your quota will reset after 3h0m43s.', '');
  assert.equal(debugLogRanOut(unnamed, 0)?.resetAt, at + 12_667_465);
  // A wait of a few minutes is Gemini CLI retrying (its own limit, 300 s): not the login out.
  assert.equal(debugLogRanOut(log.replace('Retrying after 12667465ms', 'Retrying after 6173ms'), 0), null);
  assert.equal(debugLogRanOut(log.replace('Retrying after 12667465ms', 'Retrying after 300000ms'), 0), null);
  // The server out of capacity is not this login's quota.
  const server = log.replace(CAPACITY, 'No capacity available for model gemini-2.5-pro on the server');
  assert.equal(debugLogRanOut(server, 0), null);
  assert.equal(debugLogRanOut(fixture('code-assist-individual-0.61.0.debug-log.txt'), 0), null, 'no wait: reported');
});

test("lanes' wrapper asks Gemini CLI for its debug log and finds the wait in it, or in the log the environment names", () => {
  const dir = tmp('lanes-gemini-login-tmp-');
  const own = agentLog('gemini', {}, dir, 'gemini:1/2')!;
  assert.equal(own.name, 'GEMINI_DEBUG_LOG_FILE');
  assert.ok(own.then === null && own.path.startsWith(`${dir}/lanes-gemini-gemini_1_2-`), own.path);
  // In a private directory of its own: the log holds the conversation, and a shared /tmp holds others' files.
  assert.equal(statSync(dirname(own.path)).mode & 0o777, 0o700);
  // A log the environment names is every session's: the run still keeps its own (a quota line there
  // could be another seat's), appended to the named one at the end.
  const named = agentLog('gemini', { GEMINI_DEBUG_LOG_FILE: '/var/log/g.log' }, dir, 'x')!;
  assert.equal(named.then, '/var/log/g.log');
  assert.ok(named.path.startsWith(`${dir}/lanes-gemini-x-`), named.path);
  // An "Attempt failed" line without a wait does not swallow the log's next entries (the conversation).
  const mixed =
    '[2026-12-03T05:59:10.000Z] [WARN] Attempt 1 failed: fetch failed\n' +
    '[2026-12-03T05:59:11.000Z] [DEBUG] model said: the secret plan\n' +
    '[2026-12-03T05:59:17.839Z] [WARN] Attempt 2 failed: You have exhausted your capacity on this model. Your quota will reset after 3h0m43s.. Retrying after 10843000ms...\n';
  const seen = debugLogRanOut(mixed, 0);
  assert.ok(seen && !seen.message?.includes('secret plan'), JSON.stringify(seen));
  assert.equal(agentLog('codex', {}, dir, 'x'), null);
  const at = Date.parse('2026-12-03T05:59:17.839Z');
  writeFileSync(own.path, fixture('code-assist-capacity-0.61.0.debug-log.txt'));
  assert.equal(
    runRecord('gemini', HOME, null, at - 10_000, dir, '/home/dev/project', own.path)?.ranOut?.resetAt,
    at + H3(0, 43),
  );
  assert.equal(
    runRecord('gemini', HOME, null, at - 10_000, dir, '/home/dev/project', null),
    null,
    'no log: nothing seen',
  );
});
