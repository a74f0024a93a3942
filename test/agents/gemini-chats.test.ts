import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GEMINI_CONTINUE, resumeCommand } from '../../src/core/agent-logins.js';
import { carryConversation, hasConversation } from '../../src/core/carry-conversation.js';
import { geminiChatSince } from '../../src/core/gemini-chats.js';

// Gemini CLI 0.61's chats as its bundle writes them (core/gemini-chats.ts): a project's short name
// in .gemini/projects.json, owned by tmp/<slug>/.project_root; the chat in tmp/<slug>/chats/
// session-<minute>-<first 8 of the id>.jsonl, its first line the session's metadata.

const ID = '1e7e9c9a-92b7-42a4-aa94-60e098cad56d';
const PROJECT = '/work/shop';
const FILE = 'session-2026-12-03T05-23-1e7e9c9a.jsonl';

function home(root: string, name: string, slug: string | null, owner = PROJECT): string {
  const h = join(root, name);
  mkdirSync(join(h, '.gemini'), { recursive: true });
  if (slug) {
    mkdirSync(join(h, '.gemini', 'tmp', slug, 'chats'), { recursive: true });
    writeFileSync(join(h, '.gemini', 'tmp', slug, '.project_root'), owner);
  }
  return h;
}

function chat(h: string, slug: string, file = FILE, id = ID, start = '2026-12-03T05:23:51.108Z', kind = 'main') {
  const p = join(h, '.gemini', 'tmp', slug, 'chats', file);
  writeFileSync(p, `${JSON.stringify({ sessionId: id, projectHash: 'h', startTime: start, kind })}\n{"type":"user"}\n`);
  return p;
}

test('resuming Gemini CLI on another seat: --resume ID, told to continue the task it quotes, its own session flags dropped', () => {
  const gemini = (args: string[]) => resumeCommand('gemini', ['gemini', ...args], ID);
  const go = (task: string) => `${GEMINI_CONTINUE} The task, as first given: ${task}`;
  assert.deepEqual(gemini(['-p', 'Run the three commands.', '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash']), [
    'gemini',
    '-p',
    go('Run the three commands.'),
    '--approval-mode',
    'yolo',
    '-m',
    'gemini-2.5-flash',
    '--resume',
    ID,
  ]);
  assert.deepEqual(gemini(['--prompt=fix it', '-y']), ['gemini', '--prompt', go('fix it'), '-y', '--resume', ID]);
  assert.deepEqual(gemini(['-m', 'pro', 'fix', 'the', 'bug']), [
    'gemini',
    '-m',
    'pro',
    go('fix the bug'),
    '--resume',
    ID,
  ]);
  assert.deepEqual(gemini(['--resume', 'latest', '--session-id', 'x', '-y']), ['gemini', '-y', '--resume', ID]);
  assert.deepEqual(gemini(['-r', '--yolo']), ['gemini', '--yolo', '--resume', ID], 'a bare --resume takes no value');
  assert.deepEqual(gemini(['-y', '--', '-fix', 'it']), ['gemini', '-y', go('-fix it'), '--resume', ID]);
  assert.deepEqual(
    gemini(['-p', '', '-y']),
    ['gemini', '-p', GEMINI_CONTINUE, '-y', '--resume', ID],
    'a prompt on stdin',
  );
  assert.deepEqual(gemini([]), ['gemini', '--resume', ID], 'interactive: nothing to say for it');
});

test('a Gemini CLI chat is carried into the slug the new home gives the project, never over a copy as new there', () => {
  const root = mkdtempSync(join(tmpdir(), 'lanes-gemini-chats-'));
  const a = home(root, 'a', 'shop');
  chat(a, 'shop');
  mkdirSync(join(a, '.gemini', 'tmp', 'shop', 'chats', ID), { recursive: true });
  writeFileSync(join(a, '.gemini', 'tmp', 'shop', 'chats', ID, 'sub.jsonl'), 'sub\n');
  chat(a, 'shop', 'session-2026-12-03T05-23-1e7e9c9b.jsonl', `${ID.slice(0, 7)}b-0000`);

  // A home that never saw the project: the slug is claimed with its marker, as Gemini CLI would.
  const b = home(root, 'b', null);
  assert.deepEqual(carryConversation('gemini', ID, a, b).sort(), [
    join(b, '.gemini', 'tmp', 'shop', 'chats', ID),
    join(b, '.gemini', 'tmp', 'shop', 'chats', FILE),
  ]);
  assert.equal(readFileSync(join(b, '.gemini', 'tmp', 'shop', '.project_root'), 'utf8'), PROJECT);
  assert.equal(hasConversation('gemini', ID, b), true);
  assert.deepEqual(
    carryConversation('gemini', ID, a, b),
    [],
    'the new home keeps its copy (as new: nothing taken since)',
  );

  // The project has another slug in the new home's registry: there.
  const c = home(root, 'c', 'shop-2');
  writeFileSync(join(c, '.gemini', 'projects.json'), JSON.stringify({ projects: { [PROJECT]: 'shop-2' } }));
  assert.ok(carryConversation('gemini', ID, a, c).includes(join(c, '.gemini', 'tmp', 'shop-2', 'chats', FILE)));

  // The slug belongs to another project there: the next free one.
  const d = home(root, 'd', 'shop', '/elsewhere/shop');
  assert.ok(carryConversation('gemini', ID, a, d).includes(join(d, '.gemini', 'tmp', 'shop-1', 'chats', FILE)));
  assert.equal(existsSync(join(d, '.gemini', 'tmp', 'shop', 'chats', FILE)), false, "another project's directory");
  assert.equal(hasConversation('gemini', 'ffffffff-0000', d), false);
});

test('the conversation a run began is the one chat of its project since then: none when two could be', () => {
  const root = mkdtempSync(join(tmpdir(), 'lanes-gemini-since-'));
  const h = home(root, 'h', 'shop');
  home(root, 'h', 'other', '/work/other');
  const since = Date.parse('2026-12-03T05:23:00Z');
  assert.equal(geminiChatSince(h, since, PROJECT), null, 'no chat yet');
  chat(h, 'shop', 'session-2026-12-03T05-20-0ld0ld00.jsonl', '0ld0ld00-1', '2026-12-03T05:20:00.000Z');
  chat(h, 'other', 'session-2026-12-03T05-24-07he7000.jsonl', '07he7000-1', '2026-12-03T05:24:00.000Z');
  const sub = chat(
    h,
    'shop',
    'session-2026-12-03T05-24-50b50b00.jsonl',
    '50b50b00-1',
    '2026-12-03T05:24:00Z',
    'subagent',
  );
  utimesSync(sub, new Date(), new Date());
  chat(h, 'shop');
  assert.equal(geminiChatSince(h, since, PROJECT), ID, 'begun since, of this project, a main chat');
  chat(h, 'shop', 'session-2026-12-03T05-25-5ec0nd00.jsonl', '5ec0nd00-1', '2026-12-03T05:25:00.000Z');
  assert.equal(geminiChatSince(h, since, PROJECT), null, 'two: not a guess');
});
