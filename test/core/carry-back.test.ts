import { appendFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { carryConversation } from '../../src/core/carry-conversation.js';
import { tmp } from '../helpers/env.js';

// A session that moves A → B → A: at the second move, seat A still holds its own older copy of the
// conversation, and B's turns must replace it (kept, the resume on A would drop them without a
// word). A copy never replaces a newer file. Real files; Claude Code's and Gemini CLI's layouts.

const ID = '1e7e9c9a-92b7-42a4-aa94-60e098cad56d';
const later = (p: string, s: number) => utimesSync(p, new Date(Date.now() + s * 1000), new Date(Date.now() + s * 1000));

test('Claude Code: carried back to the seat it left, the conversation replaces the older copy there, never a newer one', () => {
  const [a, b] = [tmp('lanes-carry-a-'), tmp('lanes-carry-b-')];
  const onA = join(a, 'projects', '-work-shop', `${ID}.jsonl`);
  mkdirSync(join(a, 'projects', '-work-shop'), { recursive: true });
  writeFileSync(onA, '{"turn":"on A"}\n');
  assert.equal(carryConversation('claude-code', ID, a, b).length, 1);
  const onB = join(b, 'projects', '-work-shop', `${ID}.jsonl`);
  appendFileSync(onB, '{"turn":"on B"}\n');
  later(onB, 5);
  assert.deepEqual(carryConversation('claude-code', ID, b, a), [onA]);
  assert.match(readFileSync(onA, 'utf8'), /on A[\s\S]*on B/, "A's copy has B's turns");
  // Carried again with nothing new: nothing copied; a newer file at the target is never replaced.
  assert.deepEqual(carryConversation('claude-code', ID, b, a), []);
  appendFileSync(onA, '{"turn":"on A again"}\n');
  later(onA, 10);
  assert.deepEqual(carryConversation('claude-code', ID, b, a), []);
  assert.match(readFileSync(onA, 'utf8'), /on A again/);
});

test('Gemini CLI: the chat carried back replaces the older copy in the project of the seat it left', () => {
  const [a, b] = [tmp('lanes-carry-ga-'), tmp('lanes-carry-gb-')];
  const file = 'session-2026-12-03T05-23-1e7e9c9a.jsonl';
  for (const h of [a, b]) {
    mkdirSync(join(h, '.gemini', 'tmp', 'shop', 'chats'), { recursive: true });
    writeFileSync(join(h, '.gemini', 'tmp', 'shop', '.project_root'), '/work/shop');
  }
  const onA = join(a, '.gemini', 'tmp', 'shop', 'chats', file);
  writeFileSync(onA, `${JSON.stringify({ sessionId: ID, startTime: '2026-12-03T05:23:51.108Z', kind: 'main' })}\n`);
  assert.equal(carryConversation('gemini', ID, a, b).length, 1);
  const onB = join(b, '.gemini', 'tmp', 'shop', 'chats', file);
  appendFileSync(onB, '{"type":"user","text":"on B"}\n');
  later(onB, 5);
  assert.deepEqual(carryConversation('gemini', ID, b, a), [onA]);
  assert.match(readFileSync(onA, 'utf8'), /on B/);
});
