import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loginRanOut, parseClaudeShaped } from '../../src/agents/claude-shaped.js';
import { resetFromText } from '../../src/agents/adapter.js';
import { CODEX_CONTINUE, agentUserFile, resumeCommand } from '../../src/core/agent-logins.js';
import { carryConversation } from '../../src/core/carry-conversation.js';

// Issue 29: what Claude Code 2.1's StopFailure says (its binary's schema: error, error_details,
// last_assistant_message), read as a login that ran out only when it did; the reset it names, in
// the zone it names; the commands that resume on another seat; the conversation carried there.

const base = { session_id: 's1', cwd: '/r', hook_event_name: 'StopFailure' };

test("Claude Code's StopFailure: a usage limit is a quota event with its reset; a passing 429 and an overload are waits", () => {
  const now = Date.UTC(2026, 11, 2, 21, 0); // 22:00 in Berlin
  const hit = parseClaudeShaped('claude-code', 's1', 'stop-failure', {
    ...base,
    error: 'rate_limit',
    last_assistant_message: "You've hit your session limit · resets 5am (Europe/Berlin)",
  });
  assert.equal(hit.kind, 'quota');
  assert.match(hit.message ?? '', /hit your session limit/);
  assert.equal(resetFromText(hit.message ?? null, now), Date.UTC(2026, 11, 3, 4, 0), '5am Berlin is 04:00 UTC');
  const passing = parseClaudeShaped('claude-code', 's1', 'stop-failure', {
    ...base,
    error: 'rate_limit',
    last_assistant_message: 'Request rejected (429) · this may be a temporary capacity issue',
  });
  assert.equal(passing.kind, 'waiting');
  assert.equal(
    parseClaudeShaped('claude-code', 's1', 'stop-failure', { ...base, error: 'overloaded' }).kind,
    'waiting',
  );
  const billing = parseClaudeShaped('claude-code', 's1', 'stop-failure', {
    ...base,
    error: 'billing_error',
    error_details: 'monthly spend limit reached',
  });
  assert.equal(billing.kind, 'quota');
  assert.equal(loginRanOut('rate_limit', null), true, 'a rate limit without words: taken as run out');
  assert.equal(loginRanOut('server_error', 'usage limit'), false);
});

test("a reset named by clock: in the zone named, tomorrow when the hour has passed, else this machine's clock", () => {
  const now = Date.UTC(2026, 11, 2, 21, 0);
  assert.equal(resetFromText('resets 11pm (Europe/Berlin)', now), Date.UTC(2026, 11, 2, 22, 0));
  assert.equal(resetFromText('resets 9:30pm (UTC)', now), Date.UTC(2026, 11, 2, 21, 30));
  assert.equal(resetFromText('resets 8pm (America/New_York)', now), Date.UTC(2026, 11, 3, 1, 0));
  assert.equal(resetFromText('resets 8pm (Not/AZone)', now) !== null, true, 'an unknown zone: the local clock');
  assert.equal(resetFromText('try again in 2 hours', now), now + 7_200_000);
  assert.equal(resetFromText('nothing said', now), null);
});

test("resuming on another seat: the agent's own resume, flags kept, the first prompt not sent again", () => {
  assert.deepEqual(resumeCommand('claude-code', ['claude', '--model', 'opus', '-c', 'fix it'], 'ID'), [
    'claude',
    '--model',
    'opus',
    'fix it',
    '--resume',
    'ID',
  ]);
  assert.deepEqual(resumeCommand('codex', ['codex', '-m', 'gpt-5', 'fix it'], 'ID'), [
    'codex',
    'resume',
    'ID',
    '-m',
    'gpt-5',
  ]);
  assert.deepEqual(
    resumeCommand('codex', ['codex', 'exec', '--sandbox', 'workspace-write', '--json', 'fix it'], 'ID'),
    ['codex', 'exec', '--sandbox', 'workspace-write', '--json', 'resume', 'ID', CODEX_CONTINUE],
  );
  assert.equal(resumeCommand('copilot', ['copilot'], 'ID'), null);
});

test("a seat's user-level files are where the agent reads them with its login directory moved", () => {
  const env = { CLAUDE_CONFIG_DIR: '/s/claude-a', CODEX_HOME: '/s/codex-a', GEMINI_CLI_HOME: '/s/gem-a' };
  assert.equal(agentUserFile('claude-code', '.claude/settings.json', '/h', env), '/s/claude-a/settings.json');
  assert.equal(agentUserFile('claude-code', '.claude.json', '/h', env), '/s/claude-a/.claude.json');
  assert.equal(agentUserFile('codex', '.codex/hooks.json', '/h', env), '/s/codex-a/hooks.json');
  assert.equal(agentUserFile('gemini', '.gemini/settings.json', '/h', env), '/s/gem-a/.gemini/settings.json');
  assert.equal(agentUserFile('claude-code', '.claude/settings.json', '/h', {}), '/h/.claude/settings.json');
  assert.equal(agentUserFile('cursor', '.cursor/hooks.json', '/h', env), '/h/.cursor/hooks.json');
});

test("a conversation is carried to the new seat's login directory, never over a newer file there, never by a path-like id", () => {
  const root = mkdtempSync(join(tmpdir(), 'lanes-carry-'));
  const [a, b] = [join(root, 'a'), join(root, 'b')];
  mkdirSync(join(a, 'projects', '-r-shop'), { recursive: true });
  writeFileSync(join(a, 'projects', '-r-shop', 'c0ffee-1.jsonl'), '{"turn":1}\n');
  mkdirSync(join(a, 'projects', '-r-shop', 'c0ffee-1', 'subagents'), { recursive: true });
  writeFileSync(join(a, 'projects', '-r-shop', 'c0ffee-1', 'subagents', 'x.jsonl'), 'sub\n');
  assert.deepEqual(carryConversation('claude-code', 'c0ffee-1', a, b).sort(), [
    join(b, 'projects', '-r-shop', 'c0ffee-1'),
    join(b, 'projects', '-r-shop', 'c0ffee-1.jsonl'),
  ]);
  assert.equal(readFileSync(join(b, 'projects', '-r-shop', 'c0ffee-1', 'subagents', 'x.jsonl'), 'utf8'), 'sub\n');
  assert.equal(readFileSync(join(b, 'projects', '-r-shop', 'c0ffee-1.jsonl'), 'utf8'), '{"turn":1}\n');
  // Changed since (turns taken on a): the older copy on b is replaced; one newer on b is kept.
  const [onA, onB] = [
    join(a, 'projects', '-r-shop', 'c0ffee-1.jsonl'),
    join(b, 'projects', '-r-shop', 'c0ffee-1.jsonl'),
  ];
  const at = (p: string, s: number) => utimesSync(p, new Date(Date.now() + s * 1000), new Date(Date.now() + s * 1000));
  writeFileSync(onA, 'changed\n');
  at(onA, 5);
  assert.deepEqual(carryConversation('claude-code', 'c0ffee-1', a, b), [onB], 'an older copy is replaced');
  assert.equal(readFileSync(onB, 'utf8'), 'changed\n');
  writeFileSync(onB, 'newer on b\n');
  at(onB, 10);
  assert.deepEqual(carryConversation('claude-code', 'c0ffee-1', a, b), [], 'the new seat keeps its newer copy');
  assert.equal(readFileSync(onB, 'utf8'), 'newer on b\n');
  assert.deepEqual(carryConversation('claude-code', '../../etc/passwd', a, b), []);
  mkdirSync(join(a, 'sessions', '2026', '12', '02'), { recursive: true });
  writeFileSync(join(a, 'sessions', '2026', '12', '02', 'rollout-2026-12-02T21-00-00-5eed.jsonl'), 'x\n');
  assert.deepEqual(carryConversation('codex', '5eed', a, b), [
    join(b, 'sessions', '2026', '12', '02', 'rollout-2026-12-02T21-00-00-5eed.jsonl'),
  ]);
  assert.equal(existsSync(join(b, 'sessions')), true);
  assert.deepEqual(carryConversation('gemini', '5eed', a, b), [], 'no Gemini CLI chat of that id');
  assert.deepEqual(carryConversation('cursor', '5eed', a, b), [], 'no carrying for an agent lanes does not know how');
});
