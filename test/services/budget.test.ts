// Budgets (issue 50, item 2) through lanes' hooks as Claude Code calls them: a soft limit is told
// once (the model's context, journal budget.soft); past a hard limit the next tool call is denied
// with words that tell the model to stop, summarize and wait, the session shows waiting (journal
// budget.pause, once), `lanes continue` lets it go on (each limit reached raised by its own size)
// and `lanes budget raise` sets one; the watcher stops a session paused past [budget] grace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { lanes, node, tmp } from '../helpers/env.js';
import { answer, fixture, hook, world } from '../helpers/hooks.js';

const ID = 'bbbbbbbb-0000-4000-8000-00000000000b';

/** One API message of Claude Code's transcript with this usage and `calls` tool_use blocks. */
function message(id: string, input: number, output: number, calls = 1): string {
  const content = Array.from({ length: calls }, (_, i) => ({
    type: 'tool_use',
    id: `${id}-t${i}`,
    name: 'Edit',
    input: {},
  }));
  const usage = {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  return `${JSON.stringify({ type: 'assistant', message: { id, model: 'claude-sonnet-4-5', content, usage } })}\n`;
}

function userConfig(env: Record<string, string>, text: string): void {
  const file = join(env['XDG_CONFIG_HOME'] ?? join(env['HOME']!, '.config'), 'lanes', 'config.toml');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const kinds = async (opts: { env: Record<string, string>; cwd: string }) =>
  (await lanes(['log', '--kind', 'budget', '--json'], opts)).stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { kind: string }).kind);

test('a session past its budget is paused at its next tool call; lanes continue lets it go on', async () => {
  const w = world();
  const env = { ...w.env, HOME: tmp('lanes-home-dir-'), XDG_CONFIG_HOME: tmp('lanes-xdg-') };
  const opts = { env, cwd: w.repo };
  // $3 a million in, $15 out (Sonnet 4.5): hard at $0.05, told at 10,000 tokens.
  userConfig(env, '[budget]\ngrace = "1s"\n\n[budget.session]\nusd = 0.05\nsoft_tokens = "10k"\n');
  const transcript = join(tmp('lanes-claude-'), 'transcript.jsonl');
  writeFileSync(transcript, message('msg_1', 1000, 100));
  const at = (p: Record<string, unknown>) => (p['transcript_path'] = transcript);
  answer(await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', w.repo, ID, at), opts));
  // An allowed call with nothing to say prints nothing.
  const edit = async () => {
    const payload = fixture('claude-code', 'pre-tool-use-edit', w.repo, ID, at);
    const r = await hook('claude-code', 'pre-tool-use', payload, opts);
    return r.stdout.trim() ? answer(r) : {};
  };
  const decision = (a: Record<string, unknown>) =>
    (a['hookSpecificOutput'] as Record<string, unknown> | undefined) ?? {};

  // Within: allowed, nothing said.
  assert.notEqual(decision(await edit())['permissionDecision'], 'deny');
  // Past the soft limit (12,100 tokens): allowed, the model told once, the person notified.
  appendFileSync(transcript, message('msg_2', 10_000, 1000));
  const soft = decision(await edit());
  assert.notEqual(soft['permissionDecision'], 'deny');
  assert.match(
    String(soft['additionalContext']),
    /passed its soft budget \(12,100 tokens of 10,000 tokens \(tokens\)\)/,
  );
  assert.equal(decision(await edit())['additionalContext'], undefined, 'told once');
  // Past the hard limit ($0.063 > $0.05): denied with the pause words; the session waits.
  appendFileSync(transcript, message('msg_3', 2000, 500));
  const paused = decision(await edit());
  assert.equal(paused['permissionDecision'], 'deny');
  assert.match(
    String(paused['permissionDecisionReason']),
    /reached its budget: \$0\.06 of \$0\.05 \(usd\)\. It is paused\. Stop working now and call no more tools\. Write a short summary/,
  );
  assert.equal(decision(await edit())['permissionDecision'], 'deny', 'still paused');
  assert.deepEqual(await kinds(opts), ['budget.soft', 'budget.pause'], 'the pause journaled once');
  const ls = JSON.parse((await lanes(['budget', `claude-code:${ID}`, '--json'], opts)).stdout) as {
    paused: { what: string } | null;
    spent: { usage: { toolCalls: number } };
  };
  assert.match(ls.paused?.what ?? '', /\(usd\)/);
  assert.equal(ls.spent.usage.toolCalls, 3);
  const report = JSON.parse((await lanes(['report', '--json'], opts)).stdout) as {
    needsYou: { what: string; command: string }[];
  };
  assert.ok(
    report.needsYou.some((n) => /waits for you: paused by its budget/.test(n.what)),
    JSON.stringify(report.needsYou),
  );
  assert.ok(report.needsYou.some((n) => /passed its soft budget/.test(n.what) && /^lanes budget /.test(n.command)));

  // lanes continue: usd raised by its size ($0.05) from what is spent: the next call goes through.
  const go = await lanes(['continue', `claude-code:${ID}`], opts);
  assert.equal(go.code, 0, go.stderr);
  assert.match(go.stdout, /budget: usd=0\.1\d*,soft_tokens=10000/);
  assert.notEqual(decision(await edit())['permissionDecision'], 'deny');
  const again = await lanes(['continue', `claude-code:${ID}`], opts);
  assert.equal(again.code, 1, 'not paused: nothing to continue');
  assert.match(again.stderr, /is not paused/);
  // Careless raises: a clear error, nothing changed.
  for (const bad of ['usd=-1', 'usd=free', 'cost=5', 'soft_usd=1', ''])
    assert.equal((await lanes(['budget', 'raise', `claude-code:${ID}`, bad], opts)).code, 2, bad);
  assert.equal((await lanes(['budget', 'raise', `claude-code:${ID}`, 'tokens=1k'], opts)).code, 0);
  assert.equal(decision(await edit())['permissionDecision'], 'deny', 'a lower token limit pauses it again');

  // Paused past grace (1 s): the watcher stops it as lanes stop does (journal budget.stop).
  await new Promise((r) => setTimeout(r, 1100));
  const watcher = node('../../dist/cli.cjs', ['watch', '--every', '100ms', '--idle', '5s'], { env, cwd: w.repo });
  const ended = async () =>
    (await lanes(['log', '--kind', 'session.end', '--json'], opts)).stdout.includes(`"claude-code:${ID}"`);
  for (let i = 0; i < 100 && !(await ended()); i++) await new Promise((r) => setTimeout(r, 100));
  watcher.proc.kill();
  assert.ok(await ended(), 'the watcher stopped it');
  assert.deepEqual(
    (await kinds(opts)).filter((k) => k === 'budget.stop'),
    ['budget.stop'],
  );
});

test('runaways: the same failing call 3 times in a row, and tokens spent with no change to the worktree, are flagged once each', async () => {
  const w = world();
  const env = { ...w.env, HOME: tmp('lanes-home-dir-'), XDG_CONFIG_HOME: tmp('lanes-xdg-') };
  const opts = { env, cwd: w.repo };
  userConfig(env, '[budget]\nrunaway_repeats = 3\nrunaway_idle = "2s"\n');
  const transcript = join(tmp('lanes-claude-'), 'transcript.jsonl');
  const id = 'dddddddd-0000-4000-8000-00000000000d';
  const at = (p: Record<string, unknown>) => (p['transcript_path'] = transcript);
  /** A Bash call of `command` and its result, as Claude Code writes them. */
  const call = (n: number, command: string, failed: boolean) =>
    `${JSON.stringify({
      type: 'assistant',
      message: {
        id: `msg_${n}`,
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command } }],
        usage: { input_tokens: 100, output_tokens: 10 },
      },
    })}\n${JSON.stringify({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: 'x', is_error: failed }],
      },
    })}\n`;
  writeFileSync(transcript, call(1, 'npm test', true) + call(2, 'npm run lint', true) + call(3, 'npm test', true));
  answer(await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', w.repo, id, at), opts));
  const runaways = async () =>
    (await lanes(['log', '--kind', 'budget.runaway', '--json'], opts)).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { details: { why: string; what: string } }).details);
  const watcher = node('../../dist/cli.cjs', ['watch', '--every', '100ms', '--idle', '20s'], { env, cwd: w.repo });
  try {
    const until = async (n: number) => {
      for (let i = 0; i < 100 && (await runaways()).length < n; i++) await new Promise((r) => setTimeout(r, 100));
      return runaways();
    };
    // Two failures of npm test, with another between: no streak of 3 yet. Two more: 3 in a row.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await runaways(), []);
    appendFileSync(transcript, call(4, 'npm test', true) + call(5, 'npm test', true));
    let r = await until(1);
    assert.deepEqual(r[0], {
      why: 'repeats',
      what: 'the same tool call failed 3 times in a row: Bash {"command":"npm test"}',
    });
    appendFileSync(transcript, call(6, 'npm test', true));
    // Tokens keep coming and the worktree does not change for 2 s: flagged once, with the spend.
    for (let i = 0; i < 30; i++) {
      appendFileSync(transcript, call(100 + i, `echo ${i}`, false));
      await new Promise((r) => setTimeout(r, 100));
    }
    r = await until(2);
    assert.equal(r.length, 2, JSON.stringify(r));
    assert.equal(r[1]!.why, 'idle');
    assert.match(r[1]!.what, /^[\d,]+ tokens spent in \d+ (s|min) with no change to its worktree$/);
    const report = JSON.parse((await lanes(['report', '--json'], opts)).stdout) as { needsYou: { what: string }[] };
    assert.equal(report.needsYou.filter((n) => /looks like a runaway/.test(n.what)).length, 2);
  } finally {
    watcher.proc.kill();
  }
});

test("the night's budget: what every session spent adds up; the one that crosses it is paused, lanes continue raises it for that one", async () => {
  const w = world();
  const env = { ...w.env, HOME: tmp('lanes-home-dir-'), XDG_CONFIG_HOME: tmp('lanes-xdg-') };
  const opts = { env, cwd: w.repo };
  // $3 a million in, $15 out: 8,000 in and 400 out are $0.03 each; the night may spend $0.05.
  userConfig(env, '[budget.night]\nusd = 0.05\n');
  const session = async (id: string) => {
    const transcript = join(tmp('lanes-claude-'), 'transcript.jsonl');
    writeFileSync(transcript, message(`msg_${id}`, 8000, 400));
    const at = (p: Record<string, unknown>) => (p['transcript_path'] = transcript);
    answer(await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', w.repo, id, at), opts));
    return async () => {
      const r = await hook(
        'claude-code',
        'pre-tool-use',
        fixture('claude-code', 'pre-tool-use-edit', w.repo, id, at),
        opts,
      );
      const a = r.stdout.trim() ? answer(r) : {};
      return (a['hookSpecificOutput'] as Record<string, unknown> | undefined) ?? {};
    };
  };
  const a = await session('aaaaaaaa-0000-4000-8000-0000000000a1');
  const b = await session('aaaaaaaa-0000-4000-8000-0000000000b2');
  assert.notEqual((await a())['permissionDecision'], 'deny', 'A alone: $0.03 of $0.05');
  const paused = await b();
  assert.equal(paused['permissionDecision'], 'deny', 'B with A: $0.06 of $0.05');
  assert.match(
    String(paused['permissionDecisionReason']),
    /reached its budget: night: \$0\.06 of \$0\.05 \(usd\)\. It is paused/,
  );
  const go = await lanes(['continue', 'claude-code:aaaaaaaa-0000-4000-8000-0000000000b2'], opts);
  assert.equal(go.code, 0, go.stderr);
  assert.notEqual((await b())['permissionDecision'], 'deny', 'the night raised for B: $0.11');
  assert.deepEqual(await kinds(opts), ['budget.pause', 'budget.continue']);
});
