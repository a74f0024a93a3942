// What a session spent (issue 50, item 1), read from its agent's own record as lanes' hooks name it
// (transcript_path at session start and turn end) and read from where the last read stopped:
// Codex 0.171's rollout (a recorded one: test/fixtures/codex-rollout) and Claude Code's
// transcript (one message written as several entries: counted once). Through the CLI: the report
// (--json and text) has the tokens, the cost from the price table, and a user's own prices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lanes, ROOT, tmp } from '../helpers/env.js';
import { fixture, hook, world } from '../helpers/hooks.js';
import { claudeMessage, four } from './spend-helpers.js';
import type { ReportSpend } from './spend-helpers.js';

const ROLLOUT = join(ROOT, 'test', 'fixtures', 'codex-rollout', 'usage-limit-0.171.0.jsonl');

test('spend: tokens from Codex rollouts and Claude transcripts named by the hooks, read incrementally, priced', async () => {
  const { repo, env, opts } = world();
  // Codex: the rollout of a real 0.171 run, named by SessionStart's transcript_path.
  const rollout = join(tmp('lanes-codex-'), 'rollout.jsonl');
  const lines = readFileSync(ROLLOUT, 'utf8').split('\n').filter(Boolean);
  writeFileSync(rollout, `${lines.slice(0, 9).join('\n')}\n`);
  const codexId = '019a7c2e-1111-7222-8333-944455556666';
  await hook(
    'codex',
    'session-start',
    fixture('codex', 'session-start', repo, codexId, (p) => (p['transcript_path'] = rollout)),
    opts,
  );
  // Claude Code: a transcript whose second message is only half written when first read.
  const transcript = join(tmp('lanes-claude-'), 'transcript.jsonl');
  writeFileSync(
    transcript,
    claudeMessage('msg_1', 'claude-sonnet-4-5', {
      input_tokens: 1000,
      output_tokens: 200,
      cache_read_input_tokens: 5000,
      cache_creation_input_tokens: 300,
    }) +
      claudeMessage(
        'msg_2',
        'claude-sonnet-4-5',
        { input_tokens: 10, output_tokens: 50, cache_read_input_tokens: 6000, cache_creation_input_tokens: 0 },
        1,
      ),
  );
  const claudeId = 'cccccccc-0000-4000-8000-000000000001';
  await hook(
    'claude-code',
    'session-start',
    fixture('claude-code', 'session-start', repo, claudeId, (p) => (p['transcript_path'] = transcript)),
    opts,
  );

  const spend = async () => {
    const r = await lanes(['report', '--json'], opts);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as ReportSpend).spend;
  };
  let s = await spend();
  // Codex: the first token_count of the part written (100 in, 10 out); Claude: both messages so far.
  assert.deepEqual(four(s.total), {
    input: 100 + 1000 + 10,
    output: 10 + 200 + 50,
    cacheRead: 5000 + 6000,
    cacheWrite: 300,
  });
  assert.deepEqual(s.sessions.map((x) => [x.agent, x.measured]).sort(), [
    ['claude-code', true],
    ['codex', true],
  ]);

  // More written: the rest of the rollout (its last total: 200 in, 20 out), msg_2's second entry
  // (the same message: not counted again) and a third message; then a line cut in the middle.
  appendFileSync(rollout, `${lines.slice(9).join('\n')}\n`);
  appendFileSync(
    transcript,
    claudeMessage(
      'msg_2',
      'claude-sonnet-4-5',
      { input_tokens: 10, output_tokens: 50, cache_read_input_tokens: 6000, cache_creation_input_tokens: 0 },
      1,
    ) +
      claudeMessage('msg_3', 'claude-opus-4-1', {
        input_tokens: 2000,
        output_tokens: 1000,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      }) +
      '{"type":"assistant","message":{"id":"msg_4","usage":{"input_tok',
  );
  s = await spend();
  assert.deepEqual(four(s.total), { input: 200 + 3010, output: 20 + 1250, cacheRead: 11000, cacheWrite: 300 });
  // Sonnet 4.5 ($3/$15/$0.30/$3.75 a million) and Opus 4.1 ($15/$75); gpt-5.5 at gpt-5's ($1.25/$10).
  const claude = (1010 * 3 + 250 * 15 + 11000 * 0.3 + 300 * 3.75 + 2000 * 15 + 1000 * 75) / 1e6;
  const codex = (200 * 1.25 + 20 * 10) / 1e6;
  assert.ok(Math.abs(s.costUsd - (claude + codex)) < 1e-9, `cost ${s.costUsd} vs ${claude + codex}`);
  // Read from where it stopped: the caches hold the offsets, up to the last whole line.
  const caches = readdirSync(join(env['LANES_HOME']!, 'spend'));
  assert.equal(caches.length, 2);
  const offsets = caches.map(
    (f) => (JSON.parse(readFileSync(join(env['LANES_HOME']!, 'spend', f), 'utf8')) as { offset: number }).offset,
  );
  assert.ok(
    offsets.includes(readFileSync(transcript, 'utf8').lastIndexOf('\n') + 1),
    'the cut line is left for the next read',
  );

  // A user's own price table is laid over lanes'; a broken one is named and not used.
  writeFileSync(join(env['LANES_HOME']!, 'prices.json'), JSON.stringify({ 'gpt-5.5': { input: 1000, output: 0 } }));
  s = await spend();
  assert.ok(Math.abs(s.costUsd - (claude + (200 * 1000) / 1e6)) < 1e-9);
  writeFileSync(join(env['LANES_HOME']!, 'prices.json'), '{"gpt-5.5": {"input": "cheap"}}');
  s = await spend();
  assert.match(
    s.prices ?? '',
    /prices\.json: gpt-5\.5\.input: a number of US dollars per million tokens, not "cheap"; lanes' own table is used/,
  );
  const text = await lanes(['report'], opts);
  assert.match(
    text.stdout,
    /Spend: [\d.]+k tokens \(in 3\.2k, out 1\.3k, cache read 11k, cache write 300\), about \$0\.\d\d/,
  );

  // A transcript rewritten shorter is read again from its start.
  writeFileSync(transcript, claudeMessage('msg_9', 'claude-haiku-4-5', { input_tokens: 7, output_tokens: 3 }));
  s = await spend();
  assert.deepEqual(four(s.total), { input: 200 + 7, output: 20 + 3, cacheRead: 0, cacheWrite: 0 });
});

test('spend per seat: each session counts on the seat it ran on (lanes start --seat), in the report (text and --json)', async () => {
  const { repo, env: base } = world();
  const home = tmp('lanes-seat-home-');
  const env = { ...base, HOME: home, LANES_CONFIG: join(home, 'lanes.toml') };
  const opts = { env, cwd: repo };
  for (const seat of ['work', 'spare']) {
    mkdirSync(join(home, seat), { recursive: true });
    const r = await lanes(
      ['seat', 'add', seat, '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${join(home, seat)}`],
      opts,
    );
    assert.equal(r.code, 0, r.stderr);
  }
  /** A session on `seat` whose agent (this shell, as Claude Code's hooks would) names a transcript of `input` tokens in. */
  const run = async (seat: string, n: number, input: number) => {
    const transcript = join(tmp('lanes-claude-'), 'transcript.jsonl');
    writeFileSync(
      transcript,
      claudeMessage(`msg_${seat}_${n}`, 'claude-sonnet-4-5', { input_tokens: input, output_tokens: 10 }, 1),
    );
    const payload = fixture('claude-code', 'session-start', repo, `eeeeeeee-0000-4000-8000-00000000000${n}`, (p) => {
      p['transcript_path'] = transcript;
    });
    const hookCmd = `printf '%s' "$PAYLOAD" | "${process.execPath}" "${join(ROOT, 'dist', 'cli.cjs')}" hook claude-code session-start >/dev/null`;
    const r = await lanes(['start', '--agent', 'claude-code', '--seat', seat, '--', 'sh', '-c', hookCmd], {
      ...opts,
      env: { ...env, PAYLOAD: JSON.stringify(payload) },
    });
    assert.equal(r.code, 0, r.stderr + r.stdout);
  };
  await run('work', 1, 1000);
  await run('work', 2, 2000);
  await run('spare', 3, 500);
  const r = await lanes(['report', '--json'], opts);
  assert.equal(r.code, 0, r.stderr);
  const s = (
    JSON.parse(r.stdout) as { spend: { seats: { seat: string; sessions: number; tokens: { input: number } }[] } }
  ).spend;
  assert.deepEqual(
    s.seats.map((x) => [x.seat, x.sessions, x.tokens.input]),
    [
      ['work', 2, 3000],
      ['spare', 1, 500],
    ],
  );
  const text = (await lanes(['report'], opts)).stdout;
  assert.match(text, /seat work: 3\.0k tokens, about \$0\.01 \(2 session\(s\)\)/);
  assert.match(text, /seat spare: 510 tokens/);
});
