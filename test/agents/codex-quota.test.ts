import { mkdirSync, readFileSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rolloutCwd, rolloutId, rolloutNotUsers, rolloutRanOut } from '../../src/agents/codex/rollout.js';
import { runRecord } from '../../src/agents/run-record.js';
import { codexRollout } from '../helpers/codex-day.js';
import { FIXTURES, lanes, tmp } from '../helpers/env.js';
import { fixture, hook, world } from '../helpers/hooks.js';

// Codex's own record when a ChatGPT plan runs out: the rollout the released CLI (0.171.0, test/
// real-agents/codex-seats) wrote when the Responses API refused it with `usage_limit_reached`
// (fixtures/codex-rollout/usage-limit-0.171.0.jsonl, its times moved to now here; beside it what
// it wrote for a passing 429 and for an API key's insufficient_quota). Codex has no
// hook that carries the error: lanes reads it there, at SessionEnd (transcript_path) and from the
// wrapper when `codex exec` exits on it.

const ID = '019ae2a1-5f6d-7b20-9c31-4d5e6f708192';
const RECORDED = readFileSync(join(FIXTURES, 'codex-rollout', 'usage-limit-0.171.0.jsonl'), 'utf8');
// A rollout's first record as 0.171.0 wrote it (test/real-agents/codex-seats, 22 KB: its
// instructions), naming the directory Codex ran in; `meta(dir)` names another.
const META = readFileSync(join(FIXTURES, 'codex-rollout', 'session-meta-0.171.0.jsonl'), 'utf8').trimEnd();
const meta = (dir: string) => META.replaceAll('"/tmp/lanes-repo-Qr7tMb"', JSON.stringify(dir));

/** The recorded rollout as if its refusal was written `ago` ms before now, resetting at `resetsAt` (Unix s). */
function rollout(resetsAt: number, ago = 0): string {
  const recordedAt = Date.parse([...RECORDED.matchAll(/"timestamp":"([^"]+)"/g)].at(-1)![1]!);
  const shift = Date.now() - ago - recordedAt;
  return RECORDED.replace(
    /"timestamp":"([^"]+)"/g,
    (_m, t: string) => `"timestamp":"${new Date(Date.parse(t) + shift).toISOString()}"`,
  ).replace(/"resets_at":(\d+)/, `"resets_at":${resetsAt}`);
}

const lines = (text: string) => text.trimEnd().split('\n');
const event = (payload: Record<string, unknown>, at = new Date()) =>
  JSON.stringify({ timestamp: at.toISOString(), type: 'event_msg', payload });

test("a rollout that ends on the plan's usage limit: the reset of the window that ran out, to the second", () => {
  const resetsAt = Math.floor(Date.now() / 1000) + 3 * 3600 + 7;
  const q = rolloutRanOut(rollout(resetsAt));
  assert.ok(q, 'the usage limit was not read');
  assert.equal(q.why, 'usage_limit_reached');
  assert.equal(q.resetAt, resetsAt * 1000);
  assert.match(q.message ?? '', /You[’']ve hit your usage limit/);
});

test('what is not a login run out: a later turn, a passing rate limit, an old or reset limit, a window at 100% alone', () => {
  const resetsAt = Math.floor(Date.now() / 1000) + 3600;
  const text = rollout(resetsAt);
  assert.equal(rolloutRanOut(`${text}${event({ type: 'task_started', turn_id: 't9' })}\n`), null, 'a turn after it');
  assert.equal(rolloutRanOut(rollout(resetsAt, 30 * 60_000)), null, 'told half an hour before this read');
  assert.equal(rolloutRanOut(rollout(Math.floor(Date.now() / 1000) - 60)), null, 'reset since');
  assert.equal(rolloutRanOut(text, Date.now(), Date.now() + 1000), null, 'written before this run (carried)');
  const passing = (info: unknown) =>
    [
      ...lines(text).slice(0, -1),
      event({ type: 'task_complete', turn_id: 't1', error: { message: 'x', codex_error_info: info } }),
    ].join('\n');
  assert.equal(rolloutRanOut(passing('rate_limit_exceeded')), null, 'a passing 429');
  assert.equal(rolloutRanOut(passing({ response_too_many_failed_attempts: { http_status_code: 429 } })), null);
  const clean = [
    ...lines(text).slice(0, -1),
    event({ type: 'task_complete', turn_id: 't1', last_agent_message: 'Done.' }),
  ];
  assert.equal(rolloutRanOut(clean.join('\n')), null, 'the window at 100% with the turn done is no error');
});

/** A recorded rollout's last lines (its token_count and task_complete), timed now. */
const recorded = (name: string) =>
  readFileSync(join(FIXTURES, 'codex-rollout', name), 'utf8').replace(
    /"timestamp":"[^"]+"/g,
    `"timestamp":"${new Date().toISOString()}"`,
  );

test('as Codex 0.171 records them: a passing 429 is not a login run out, an API key out of credit is billing', () => {
  // 429 rate_limit_exceeded ("Please try again in 200ms"), no retry left: response_too_many_failed_attempts.
  assert.equal(rolloutRanOut(recorded('rate-limit-0.171.0.jsonl')), null);
  // 429 insufficient_quota: usage_limit_exceeded too, in Codex's words for billing.
  assert.deepEqual(rolloutRanOut(recorded('insufficient-quota-0.171.0.jsonl')), {
    why: 'billing_error',
    message: 'Quota exceeded. Check your plan and billing details.',
    resetAt: null,
  });
});

test("an API key's insufficient_quota is billing (no window resets it); Codex's own words name the time otherwise", () => {
  const billing = event({
    type: 'task_complete',
    turn_id: 't1',
    error: {
      message: 'Quota exceeded. Check your plan and billing details.',
      codex_error_info: 'usage_limit_exceeded',
    },
  });
  assert.deepEqual(rolloutRanOut(billing), {
    why: 'billing_error',
    message: 'Quota exceeded. Check your plan and billing details.',
    resetAt: null,
  });
  const later = new Date(Date.now() + 2 * 3_600_000);
  later.setSeconds(0, 0);
  const time = later.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' }).replace(/\u202f/g, ' ');
  // Codex names only the time for a reset today and the date too otherwise (after 22:00 here).
  const month = later.toLocaleDateString('en-US', { month: 'short' });
  const today = later.getDate() === new Date().getDate();
  const clock = today ? time : `${month} ${later.getDate()}th, ${later.getFullYear()} ${time}`;
  const words = event({
    type: 'task_complete',
    turn_id: 't1',
    error: { message: `You've hit your usage limit. Try again at ${clock}.`, codex_error_info: 'usage_limit_exceeded' },
  });
  const q = rolloutRanOut(words);
  assert.equal(q?.why, 'usage_limit_reached');
  assert.equal(q?.resetAt, later.getTime(), `"${clock}" read in local time`);
  assert.equal(rolloutId(`rollout-2026-12-03T02-40-11-${ID}.jsonl`), ID);
});

/** A login (CODEX_HOME) holding the recorded rollout, begun in directory `cwd` (the test's, as runRecord's default). */
function codexHome(resetsAt: number, ago = 0, cwd = process.cwd()): { dir: string; file: string } {
  const dir = tmp('lanes-codex-home-');
  const { day, name } = codexRollout(join(dir, 'sessions'), ID);
  mkdirSync(day, { recursive: true });
  const file = join(day, name);
  writeFileSync(file, `${meta(realpathSync(cwd))}\n${rollout(resetsAt, ago)}`);
  return { dir, file };
}

test("lanes' wrapper reads the run's rollout in the seat's CODEX_HOME: its conversation, and whether it ran out", () => {
  const resetsAt = Math.floor(Date.now() / 1000) + 3600;
  const { dir } = codexHome(resetsAt);
  const found = runRecord('codex', dir, null, Date.now() - 5000);
  assert.equal(found?.conversation, ID);
  assert.equal(found?.ranOut?.resetAt, resetsAt * 1000);
  assert.equal(runRecord('codex', dir, ID, Date.now() - 5000)?.ranOut?.why, 'usage_limit_reached', 'by its id');
  assert.equal(runRecord('codex', dir, null, Date.now() + 60_000), null, 'no rollout written since the run began');
  assert.equal(runRecord('claude-code', dir, null, 0), null);
});

test("on a login two sessions share, lanes' wrapper reads only the rollout its own run began (its directory), however new another's", () => {
  const mine = tmp('lanes-codex-mine-');
  const theirs = tmp('lanes-codex-theirs-');
  const { dir, file } = codexHome(Math.floor(Date.now() / 1000) + 3600, 0, mine);
  // Another session on the same seat, in its own worktree: its conversation written after ours.
  const OTHER = '019ae2a1-5f6d-7b20-9c31-aaaaaaaaaaaa';
  const other = file.replace(ID, OTHER);
  writeFileSync(other, `${meta(realpathSync(theirs))}\n${event({ type: 'task_started', turn_id: 't9' })}\n`);
  const later = new Date(Date.now() + 2000);
  utimesSync(other, later, later);
  const since = Date.now() - 5000;
  assert.equal(runRecord('codex', dir, null, since, tmpdir(), mine)?.conversation, ID, 'ours, not the newer one');
  assert.equal(runRecord('codex', dir, null, since, tmpdir(), theirs)?.conversation, OTHER);
  assert.equal(
    runRecord('codex', dir, null, since, tmpdir(), tmp('lanes-codex-else-')),
    null,
    'a run elsewhere: neither',
  );
  const link = join(tmp('lanes-codex-link-'), 'worktree');
  symlinkSync(mine, link);
  assert.equal(
    runRecord('codex', dir, null, since, tmpdir(), link)?.conversation,
    ID,
    'the same directory through a symlink',
  );
  // `codex -C DIR` records DIR as given (`.` joined on, a symlink kept): the same directory.
  writeFileSync(file, `${meta(join(link, '.'))}\n${rollout(Math.floor(Date.now() / 1000) + 3600)}`);
  assert.equal(runRecord('codex', dir, null, since, tmpdir(), mine)?.conversation, ID, 'recorded as -C gave it');
  // A rollout whose first record is not its session_meta (cut, another format) is nobody's.
  writeFileSync(file, rollout(Math.floor(Date.now() / 1000) + 3600));
  assert.equal(runRecord('codex', dir, null, since, tmpdir(), mine), null);
  assert.equal(rolloutCwd(META), '/tmp/lanes-repo-Qr7tMb');
  assert.equal(rolloutCwd(meta('/work/a "quoted" \\ dir')), '/work/a "quoted" \\ dir');
  assert.equal(rolloutCwd(META.slice(0, 200)), null, 'cut before its cwd');
});

test("a sub-agent's rollout in the run's own directory (a review, a spawned thread) is never taken for the run's conversation", () => {
  const mine = tmp('lanes-codex-mine-');
  const { dir, file } = codexHome(Math.floor(Date.now() / 1000) + 3600, 0, mine);
  const since = Date.now() - 5000;
  // Codex 0.171's session_meta for a thread the run spawned: its SessionSource and ThreadSource as
  // serde writes them (codex-rs protocol: SubAgent(ThreadSpawn{…}) lowercased, thread_source "subagent").
  const TOP = '"source":"exec","thread_source":"user"';
  assert.ok(META.includes(TOP), "the fixture's own source: change the test with the fixture");
  const spawned = `"source":{"subagent":{"thread_spawn":{"parent_thread_id":"${ID}","depth":1,"agent_path":null,"agent_nickname":"Scout","agent_role":"explorer"}}},"thread_source":"subagent"`;
  const kinds = {
    spawned,
    review: '"source":{"subagent":"review"},"thread_source":"subagent"',
    internal: '"source":{"internal":"memory_consolidation"},"thread_source":"memory_consolidation"',
    'a feature thread': '"source":"exec","thread_source":"guardian_review"',
  };
  let n = 0;
  for (const [what, source] of Object.entries(kinds)) {
    const SUB = `019ae2a1-5f6d-7b20-9c31-${String(++n).padStart(12, '0')}`;
    const sub = file.replace(ID, SUB);
    const text = `${meta(realpathSync(mine)).replace(TOP, source)}\n${event({ type: 'task_started', turn_id: 's1' })}\n`;
    assert.equal(rolloutNotUsers(text), true, what);
    writeFileSync(sub, text);
    const later = new Date(Date.now() + 2000 * n);
    utimesSync(sub, later, later);
    assert.equal(runRecord('codex', dir, null, since, tmpdir(), mine)?.conversation, ID, `not ${what}'s, though newer`);
  }
  // The user's own: a top-level run of any surface, and a session_meta of an older Codex naming neither.
  assert.equal(rolloutNotUsers(META), false);
  assert.equal(rolloutNotUsers(META.replace(TOP, '"source":"cli"')), false, 'an older Codex: no thread_source');
  assert.equal(rolloutNotUsers(META.replace(TOP, '"source":{"custom":"atlas"},"thread_source":"user"')), false);
  assert.equal(rolloutNotUsers(null), false);
});

test('SessionEnd of a Codex session whose rollout ends on the usage limit: its seat is exhausted until the reset', async () => {
  const w = world();
  const resetsAt = Math.floor(Date.now() / 1000) + 4 * 3600 + 11;
  const { dir, file } = codexHome(resetsAt);
  assert.equal((await lanes(['seat', 'add', 'a', '--agent', 'codex', '--env', `CODEX_HOME=${dir}`], w.opts)).code, 0);
  const env = { ...w.env, CODEX_HOME: dir };
  await hook('codex', 'session-start', fixture('codex', 'session-start', w.repo, ID), { ...w.opts, env });
  const end = fixture('codex', 'session-end', w.repo, ID, (p) => (p['transcript_path'] = file));
  const r = await hook('codex', 'session-end', end, { ...w.opts, env });
  assert.equal(r.code, 0, r.stderr);
  const seats = JSON.parse((await lanes(['seat', 'ls', '--json'], w.opts)).stdout) as {
    name: string;
    state: string;
    until: number | null;
    why: string | null;
  }[];
  assert.deepEqual(
    seats.map((s) => [s.name, s.state, s.why, s.until]),
    [['a', 'exhausted', 'usage_limit_reached', resetsAt * 1000]],
  );
  const log = (await lanes(['log', '--kind', 'seat.exhausted', '--json'], w.opts)).stdout.trim().split('\n');
  assert.equal(log.length, 1);
  assert.match(log[0]!, /You[’']ve hit your usage limit/);
});

test('a SessionEnd told after the session moved to another seat marks the login the agent ran with, not the new lease', async () => {
  const w = world();
  const resetsAt = Math.floor(Date.now() / 1000) + 2 * 3600;
  const a = codexHome(resetsAt);
  const b = tmp('lanes-codex-home-b-');
  for (const [name, dir] of [
    ['a', a.dir],
    ['b', b],
  ] as const)
    assert.equal(
      (await lanes(['seat', 'add', name, '--agent', 'codex', '--env', `CODEX_HOME=${dir}`], w.opts)).code,
      0,
    );
  // The session lanes runs the agent as, already moved to seat b (its wrapper read the error first).
  const started = await lanes(['start', '--agent', 'codex', '--seat', 'b'], w.opts);
  assert.equal(started.code, 0, started.stderr);
  const env = { ...w.env, CODEX_HOME: a.dir, LANES_SESSION: started.stdout.trim() };
  await hook('codex', 'session-start', fixture('codex', 'session-start', w.repo, ID), { ...w.opts, env });
  const end = fixture('codex', 'session-end', w.repo, ID, (p) => (p['transcript_path'] = a.file));
  assert.equal((await hook('codex', 'session-end', end, { ...w.opts, env })).code, 0);
  const seats = JSON.parse((await lanes(['seat', 'ls', '--json'], w.opts)).stdout) as { name: string; state: string }[];
  assert.deepEqual(
    seats.map((s) => [s.name, s.state]),
    [
      ['a', 'exhausted'],
      ['b', 'full'],
    ],
  );
});
