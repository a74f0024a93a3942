import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reportRanOut, reportTime } from '../../src/agents/gemini/error-report.js';
import { runRecord } from '../../src/agents/run-record.js';
import { FIXTURES, tmp } from '../helpers/env.js';

// Gemini CLI's own record when its quota runs out: the error reports the released CLI (0.61.0)
// wrote to its TMPDIR when the Gemini API refused it with RESOURCE_EXHAUSTED (test/real-agents/
// gemini-seats; fixtures/gemini-error-report, the paths made placeholders). No hook of Gemini
// CLI runs on the error (`gemini -p` exits before AfterAgent and SessionEnd run): lanes' wrapper
// reads these reports.

const HOME = '/home/dev/.gemini-seat';
const report = (name: string) => readFileSync(join(FIXTURES, 'gemini-error-report', name), 'utf8');
const NAME = 'gemini-client-error-Turn.run-sendMessageStream-2026-12-03T02-48-32-685Z.json';

test("a TerminalQuotaError report of the seat's login: the reset its words name, counted from the report's time", () => {
  const at = reportTime(NAME)!;
  assert.equal(at, Date.parse('2026-12-03T02:48:32.685Z'));
  const q = reportRanOut(report('retry-in-0.61.0.json'), HOME, at);
  assert.equal(q?.why, 'quota_exhausted');
  assert.equal(q?.resetAt, at + 10_828_000, '"Please retry in 10828s."');
  const daily = reportRanOut(report('daily-0.61.0.json'), HOME, at);
  assert.deepEqual(daily, {
    why: 'quota_exhausted',
    message: 'You have exhausted your daily quota on this model.',
    resetAt: null,
  });
});

test("what is not this login's quota: another login's report, a retried quota, the server's capacity, another error", () => {
  const text = report('retry-in-0.61.0.json');
  const at = Date.now();
  assert.equal(reportRanOut(text, '/home/dev/.gemini-other', at), null, "another login's");
  assert.equal(reportRanOut(text, '/home/dev/.gemini-se', at), null, 'a prefix of the login is not the login');
  assert.equal(reportRanOut(text.replace('"TerminalQuotaError', '"RetryableQuotaError'), HOME, at), null);
  const capacity = text.replace(
    /"message": "[^"]*"/,
    '"message": "No capacity available for model gemini-2.5-pro on the server"',
  );
  assert.equal(reportRanOut(capacity, HOME, at), null);
  assert.equal(reportRanOut(text.replace('"TerminalQuotaError', '"Error'), HOME, at), null);
  const plan = text.replace(
    /"message": "[^"]*"/,
    '"message": "You have exhausted your capacity on this model. Your quota will reset after 2h52m39s."',
  );
  assert.equal(reportRanOut(plan, HOME, at)?.resetAt, at + (2 * 3600 + 52 * 60 + 39) * 1000);
  assert.equal(reportTime('gemini-client-error-general-2026-12-03T02-48-32-685Z.json'), null);
});

test("lanes' wrapper finds the report in the agent's TMPDIR written since the run began", () => {
  const dir = tmp('lanes-gemini-tmp-');
  writeFileSync(join(dir, NAME), report('retry-in-0.61.0.json'));
  const at = reportTime(NAME)!;
  assert.equal(runRecord('gemini', HOME, null, at - 1000, dir)?.ranOut?.resetAt, at + 10_828_000);
  assert.equal(runRecord('gemini', HOME, null, at + 1, dir), null, 'written before the run');
  assert.equal(runRecord('gemini', '/home/dev/.gemini-other', null, at - 1000, dir), null);
  // A long conversation after the error: only the report's start is read, and it is enough.
  const long = JSON.parse(report('retry-in-0.61.0.json')) as { context: unknown[] };
  long.context.push({ role: 'user', parts: [{ text: 'x'.repeat(600_000) }] });
  writeFileSync(join(dir, NAME), JSON.stringify(long, null, 2));
  assert.equal(runRecord('gemini', HOME, null, at - 1000, dir)?.ranOut?.resetAt, at + 10_828_000);
});
