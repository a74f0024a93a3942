// What a session spent read from each agent's own record, recorded from its released CLI (issue
// 50, item 1): Claude Code's transcript, Gemini CLI's chat record, Copilot CLI's events.jsonl and
// OpenCode's database, each found where the hooks name it or where the agent keeps it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { lanes, ROOT, tmp } from '../helpers/env.js';
import { fixture, hook, world } from '../helpers/hooks.js';
import { four } from './spend-helpers.js';
import type { ReportSpend } from './spend-helpers.js';

test("spend: Claude Code 2.1.332's own transcript (recorded by test/real-agents/claude-spend): 3 requests of 100 in, 10 out", async () => {
  const { repo, opts } = world();
  const transcript = join(tmp('lanes-claude-'), 'transcript.jsonl');
  copyFileSync(join(ROOT, 'test', 'fixtures', 'claude-transcript', 'three-requests-2.1.332.jsonl'), transcript);
  const id = 'cccccccc-0000-4000-8000-000000000003';
  const payload = fixture('claude-code', 'session-start', repo, id, (p) => (p['transcript_path'] = transcript));
  await hook('claude-code', 'session-start', payload, opts);
  const r = await lanes(['report', '--json'], opts);
  assert.equal(r.code, 0, r.stderr);
  const s = (JSON.parse(r.stdout) as ReportSpend).spend;
  assert.deepEqual(four(s.total), { input: 300, output: 30, cacheRead: 0, cacheWrite: 0 });
});

test("spend: Gemini CLI 0.61.0's own chat record (recorded by test/real-agents/gemini-spend): 3 requests of 100 in, 10 out, 2 tool calls", async () => {
  const { repo, opts } = world();
  const chat = join(tmp('lanes-gemini-'), 'session.jsonl');
  copyFileSync(join(ROOT, 'test', 'fixtures', 'gemini-chat', 'three-requests-0.61.0.jsonl'), chat);
  const payload = fixture(
    'gemini',
    'session-start',
    repo,
    'gggggggg-0000-4000-8000-000000000001',
    (p) => (p['transcript_path'] = chat),
  );
  await hook('gemini', 'session-start', payload, opts);
  const r = await lanes(['report', '--json'], opts);
  assert.equal(r.code, 0, r.stderr);
  const s = (JSON.parse(r.stdout) as ReportSpend).spend;
  assert.deepEqual(four(s.total), { input: 300, output: 30, cacheRead: 0, cacheWrite: 0 });
  // lanes ls --json says it per session too.
  const ls = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as {
    agent: string;
    spend: { tokens: { input: number }; toolCalls: number } | null;
  }[];
  const g = ls.find((x) => x.agent === 'gemini');
  assert.equal(g?.spend?.tokens.input, 300, JSON.stringify(g));
  assert.equal(g?.spend?.toolCalls, 2);
});

test("spend: Copilot CLI 1.0.102's own events.jsonl, found where Copilot keeps it ($COPILOT_HOME/session-state/ID): 5 requests, cache apart, 4 tool calls", async () => {
  const { repo, opts } = world();
  const copilotHome = tmp('lanes-copilot-home-');
  const id = 'cccccccc-0000-4000-8000-000000000001';
  const events = join(copilotHome, 'session-state', id, 'events.jsonl');
  mkdirSync(join(copilotHome, 'session-state', id), { recursive: true });
  // Recorded from the released CLI against a model answering 100 in (20 read from a cache, 5
  // written to one: Copilot counts both in inputTokens) and 10 out.
  copyFileSync(join(ROOT, 'test', 'fixtures', 'copilot-events', 'five-requests-1.0.102.jsonl'), events);
  const env = { ...opts.env, COPILOT_HOME: copilotHome };
  const start = { sessionId: id, timestamp: Date.now(), cwd: repo, source: 'new', initialPrompt: 'Do the task.' };
  await hook('copilot', 'session-start', start, { ...opts, env });
  const r = await lanes(['report', '--json'], opts);
  assert.equal(r.code, 0, r.stderr);
  const s = (JSON.parse(r.stdout) as ReportSpend).spend;
  assert.deepEqual(four(s.total), { input: 500, output: 50, cacheRead: 100, cacheWrite: 25 });
  const ls = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as {
    agent: string;
    spend: { tokens: { input: number }; toolCalls: number } | null;
  }[];
  assert.equal(ls.find((x) => x.agent === 'copilot')?.spend?.toolCalls, 4, JSON.stringify(ls));
  // A sub-agent's hooks (their own sessionId, the session's as parentAgentId) are the session's.
  const sub = { sessionId: 'dddddddd-0000-4000-8000-000000000002', parentAgentId: id, cwd: repo, prompt: 'look' };
  await hook('copilot', 'user-prompt-submitted', sub, { ...opts, env });
  const after = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as { agent: string }[];
  assert.equal(after.filter((x) => x.agent === 'copilot').length, 1, JSON.stringify(after));
});

test("spend: OpenCode 1.18.33's own database (its session's running totals, its subagent's added), found where OpenCode keeps it", async () => {
  const { repo, opts } = world();
  const data = tmp('lanes-opencode-data-');
  mkdirSync(join(data, 'opencode'));
  // Recorded from the released CLI (a dump of its session, message and part rows): a session of
  // 330 uncached in, 38 out, 12 reasoning, 80 read from a cache, and its subagent of half that.
  // Only the tables lanes reads (the schema's session, message, part, event): no project rows, no foreign keys.
  const db = new DatabaseSync(join(data, 'opencode', 'opencode.db'), { enableForeignKeyConstraints: false });
  for (const f of ['schema-1.18.33.sql', 'two-sessions-1.18.33.sql'])
    db.exec(readFileSync(join(ROOT, 'test', 'fixtures', 'opencode-db', f), 'utf8'));
  db.close();
  const env = { ...opts.env, XDG_DATA_HOME: data };
  const id = 'ses_dad3a3b00ffeOfCJ1qKJpnFjvy';
  await hook('opencode', 'session.created', fixture('opencode', 'session-created', repo, id), { ...opts, env });
  const r = await lanes(['report', '--json'], opts);
  assert.equal(r.code, 0, r.stderr);
  const s = (JSON.parse(r.stdout) as ReportSpend).spend;
  assert.deepEqual(four(s.total), { input: 495, output: 75, cacheRead: 120, cacheWrite: 0 });
  const ls = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as {
    agent: string;
    spend: { toolCalls: number } | null;
  }[];
  // bash ×3 (one blocked, one exiting 3), an unknown tool, the subagent's task.
  assert.equal(ls.find((x) => x.agent === 'opencode')?.spend?.toolCalls, 5, JSON.stringify(ls));
});
