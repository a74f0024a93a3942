import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resetFromText } from '../../src/agents/reset-time.js';
import { lanes, tmp } from '../helpers/env.js';
import { fixture, hook, world } from '../helpers/hooks.js';

// Claude Code's own words when a login runs out, as the released CLI (2.1.332, test/real-agents/
// claude-seats) says them: its StopFailure payload (`error`, `last_assistant_message`; no
// error_type/error_message) and its transcript's last entry, read at SessionEnd because `claude
// -p` exits on the error before a StopFailure hook can finish.

const ID = '7d1f0c2a-4b6e-4c8d-9e0f-1a2b3c4d5e6f';

test('reset times as Claude Code words them: a clock time, a date past a day, the zone it names', () => {
  const now = Date.parse('2026-12-02T21:35:10Z');
  assert.equal(
    resetFromText("You've hit your 5-hour limit · resets 11:35pm (UTC)", now),
    Date.parse('2026-12-02T23:35:00Z'),
  );
  assert.equal(
    resetFromText('resets 12:35am (UTC)', now),
    Date.parse('2026-12-03T00:35:00Z'),
    'past midnight: tomorrow',
  );
  assert.equal(
    resetFromText("You've hit your weekly limit · resets Dec 5, 9:36pm (UTC)", now),
    Date.parse('2026-12-05T21:36:00Z'),
  );
  assert.equal(resetFromText('resets Jan 2, 9am (UTC)', now), Date.parse('2027-01-02T09:00:00Z'), 'next year');
  assert.equal(resetFromText('resets 1:36am (Europe/Berlin)', now), Date.parse('2026-12-03T00:36:00Z'));
  assert.equal(resetFromText('resets 5:06pm (America/New_York)', now), Date.parse('2026-12-02T22:06:00Z'));
  assert.equal(resetFromText('Usage limit reached. Try again in 2 hours.', now), now + 2 * 3_600_000);
  assert.equal(resetFromText('resets Foo 5, 9pm', now), null);
});

function seatWorld() {
  const w = world();
  const dir = tmp('lanes-claude-login-');
  return { ...w, dir };
}

async function seatA(w: ReturnType<typeof seatWorld>) {
  const seats = JSON.parse((await lanes(['seat', 'ls', '--json'], w.opts)).stdout) as {
    name: string;
    state: string;
    until: number | null;
    why: string | null;
  }[];
  return seats.find((s) => s.name === 'a')!;
}

test("StopFailure as Claude Code sends it: the reset in last_assistant_message is the seat's", async () => {
  const w = seatWorld();
  assert.equal(
    (await lanes(['seat', 'add', 'a', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${w.dir}`], w.opts)).code,
    0,
  );
  const reset = new Date(Date.now() + 3 * 3_600_000);
  const clock = `${reset.getUTCHours() % 12 || 12}:${String(reset.getUTCMinutes()).padStart(2, '0')}${reset.getUTCHours() < 12 ? 'am' : 'pm'}`;
  const payload = {
    session_id: ID,
    transcript_path: join(w.dir, 'projects', 'p', `${ID}.jsonl`),
    cwd: w.repo,
    hook_event_name: 'StopFailure',
    error: 'rate_limit',
    last_assistant_message: `You've hit your 5-hour limit · resets ${clock} (UTC)`,
  };
  const r = await hook('claude-code', 'stop-failure', payload, {
    ...w.opts,
    env: { ...w.env, CLAUDE_CONFIG_DIR: w.dir },
  });
  assert.equal(r.code, 0, r.stderr);
  const a = await seatA(w);
  assert.equal(a.state, 'exhausted');
  assert.equal(a.why, 'rate_limit');
  reset.setUTCSeconds(0, 0);
  assert.equal(a.until, reset.getTime(), 'the time Claude Code named, not the default hour');
});

test('SessionEnd after a usage limit: the transcript names the error and its reset; another ending marks nothing', async () => {
  const w = seatWorld();
  assert.equal(
    (await lanes(['seat', 'add', 'a', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${w.dir}`], w.opts)).code,
    0,
  );
  const env = { ...w.env, CLAUDE_CONFIG_DIR: w.dir };
  const transcript = join(w.dir, 'projects', 'p', `${ID}.jsonl`);
  mkdirSync(join(w.dir, 'projects', 'p'), { recursive: true });
  const line = (entry: Record<string, unknown>) => JSON.stringify({ sessionId: ID, ...entry });
  const answer = line({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
  });
  const end = async () => {
    await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', w.repo, ID), { ...w.opts, env });
    const payload = fixture('claude-code', 'session-end', w.repo, ID, (p) => (p['transcript_path'] = transcript));
    const r = await hook('claude-code', 'session-end', payload, { ...w.opts, env });
    assert.equal(r.code, 0, r.stderr);
  };

  writeFileSync(transcript, [line({ type: 'user' }), answer, line({ type: 'cost-state' })].join('\n') + '\n');
  await end();
  assert.equal((await seatA(w)).state, 'free', 'a session that ended well marks nothing');

  const resetsAt = Math.floor(Date.now() / 1000) + 4 * 3600 + 7;
  const refused = line({
    type: 'assistant',
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: "You've hit your 5-hour limit · resets 3am (UTC)" }],
    },
    error: 'rate_limit',
    isApiErrorMessage: true,
    apiErrorStatus: 429,
    quotaLimits: { status: 'rejected', resetsAt, rateLimitType: 'five_hour' },
  });
  writeFileSync(transcript, [line({ type: 'user' }), answer, refused, line({ type: 'last-prompt' })].join('\n') + '\n');
  await end();
  const a = await seatA(w);
  assert.equal(a.state, 'exhausted');
  assert.equal(a.why, 'rate_limit');
  assert.equal(a.until, resetsAt * 1000, "the reset in the transcript's quotaLimits, to the second");
  // The same transcript at a later end (the limit told long before, or reset since) marks nothing again.
  assert.equal((await lanes(['seat', 'reset', 'a'], w.opts)).code, 0);
  const old = new Date(Date.now() - 3_600_000).toISOString();
  const stale = refused.replace('"type":"assistant"', `"type":"assistant","timestamp":"${old}"`);
  writeFileSync(transcript, [line({ type: 'user' }), stale, line({ type: 'last-prompt' })].join('\n') + '\n');
  await end();
  assert.equal((await seatA(w)).state, 'free', 'an error from an hour before the end is not this end');
  const reset = refused.replace(`"resetsAt":${resetsAt}`, `"resetsAt":${Math.floor(Date.now() / 1000) - 60}`);
  writeFileSync(transcript, [line({ type: 'user' }), reset, line({ type: 'last-prompt' })].join('\n') + '\n');
  await end();
  assert.equal((await seatA(w)).state, 'free', 'a limit that reset already marks nothing');
  const log = (await lanes(['log', '--kind', 'seat.exhausted', '--json'], w.opts)).stdout.trim().split('\n');
  assert.equal(log.length, 1);
  assert.match(log[0]!, /You've hit your 5-hour limit/);
});
