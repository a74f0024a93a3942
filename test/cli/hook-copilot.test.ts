import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lanes } from '../helpers/env.js';
import { answer, fixture, hook, world } from '../helpers/hooks.js';

// GitHub Copilot CLI end to end: its documented payloads (test/fixtures/agent-hooks/copilot) piped
// to the real `lanes hook copilot EVENT`, a real git repository and store; every answer checked in
// the fields Copilot gives its model (permissionDecisionReason, additionalContext).
const A = 'a1a1a1a1-1111-4111-8111-a1a1a1a1a1a1';
const B = 'b2b2b2b2-2222-4222-8222-b2b2b2b2b2b2';

/** The edit sample pointed at another file (toolArgs stays a JSON string, as Copilot sends it). */
const editOf = (repo: string, id: string, file: string, name = 'pre-tool-use-edit') =>
  fixture('copilot', name, repo, id, (p) => {
    p['toolArgs'] = JSON.stringify({ ...JSON.parse(String(p['toolArgs'])), path: join(repo, file) });
  });

test('Copilot CLI: sessions register and are briefed; a claimed path is denied with its instructions in permissionDecisionReason; the claim goes when the session ends', async () => {
  const { repo, env, opts } = world();
  const start = answer(await hook('copilot', 'session-start', fixture('copilot', 'session-start', repo, A), opts));
  assert.deepEqual(Object.keys(start), ['additionalContext']);
  assert.match(String(start['additionalContext']), new RegExp(`you are session copilot:${A}`));
  const claimed = await lanes(['claim', 'path:src/billing', 'ticket:SEAT-1'], {
    ...opts,
    env: { ...env, LANES_SESSION: `copilot:${A}` },
  });
  assert.equal(claimed.code, 0, claimed.stderr);
  await hook('copilot', 'session-start', fixture('copilot', 'session-start', repo, B), opts);

  // edit (toolArgs a JSON string, absolute path) and create (toolArgs an object, relative path).
  const edit = answer(await hook('copilot', 'pre-tool-use', fixture('copilot', 'pre-tool-use-edit', repo, B), opts));
  assert.deepEqual(Object.keys(edit).sort(), ['permissionDecision', 'permissionDecisionReason']);
  assert.equal(edit['permissionDecision'], 'deny');
  assert.match(
    String(edit['permissionDecisionReason']),
    new RegExp(`src/billing/seat\\.ts is claimed by session copilot:${A} \\(ticket SEAT-1`),
  );
  assert.match(String(edit['permissionDecisionReason']), /lanes claim path:src\/billing\/ --wait/);
  const create = answer(
    await hook('copilot', 'pre-tool-use', fixture('copilot', 'pre-tool-use-create', repo, B), opts),
  );
  assert.equal(create['permissionDecision'], 'deny');
  assert.match(String(create['permissionDecisionReason']), /src\/billing\/failover\.ts is claimed/);

  // A's turn ends; A leaves with unsaved work: snapshot, claim released, session ended.
  assert.equal((await hook('copilot', 'agent-stop', fixture('copilot', 'agent-stop', repo, A), opts)).code, 0);
  writeFileSync(join(repo, 'src', 'billing', 'seat.ts'), 'export const limit = 5 // unsaved\n');
  const end = await hook('copilot', 'session-end', fixture('copilot', 'session-end', repo, A), opts);
  assert.equal(end.code, 0, end.stderr);
  assert.match(end.stderr, /ended, 2 claim\(s\) released, work saved in refs\/lanes\/snapshots\//);
  const ls = JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as { id: string; state: string }[];
  assert.equal(ls.find((s) => s.id === `copilot:${A}`)?.state, 'ended');
  const after = await hook('copilot', 'pre-tool-use', fixture('copilot', 'pre-tool-use-edit', repo, B), opts);
  assert.deepEqual([after.code, after.stdout], [0, ''], 'allowed once the holder ended');
});

test('Copilot CLI: edits are recorded after the tool; another session editing the same file is warned in additionalContext, before and after its edit, and nothing is decided for it', async () => {
  const { repo, env, opts } = world();
  await hook('copilot', 'session-start', fixture('copilot', 'session-start', repo, A), opts);
  await hook('copilot', 'session-start', fixture('copilot', 'session-start', repo, B), opts);
  const post = await hook('copilot', 'post-tool-use', editOf(repo, A, 'src/other.ts', 'post-tool-use-edit'), opts);
  assert.deepEqual([post.code, post.stdout], [0, '']);
  const touched = await lanes(['state', 'get', 'lanes:touched', '--session', `copilot:${A}`], { env, cwd: repo });
  assert.deepEqual(JSON.parse(touched.stdout), ['src/other.ts']);

  const warned = answer(await hook('copilot', 'pre-tool-use', editOf(repo, B, 'src/other.ts'), opts));
  assert.deepEqual(Object.keys(warned), ['additionalContext'], 'a warning decides nothing');
  assert.match(String(warned['additionalContext']), new RegExp(`src/other\\.ts also changed by session copilot:${A}`));
  const again = answer(
    await hook('copilot', 'post-tool-use', editOf(repo, B, 'src/other.ts', 'post-tool-use-edit'), opts),
  );
  assert.match(String(again['additionalContext']), /src\/other\.ts also changed/);
  // A file nobody else touched: silent.
  const free = await hook('copilot', 'pre-tool-use', editOf(repo, B, 'src/billing/seat.ts'), opts);
  assert.deepEqual([free.code, free.stdout], [0, '']);
});

test('Copilot CLI: index-changing git in a worktree shared with another live session is denied with what to do instead; read-only git passes', async () => {
  const { repo, opts } = world();
  await hook('copilot', 'session-start', fixture('copilot', 'session-start', repo, A), opts);
  await hook('copilot', 'session-start', fixture('copilot', 'session-start', repo, B), opts);
  const denied = answer(await hook('copilot', 'pre-tool-use', fixture('copilot', 'pre-tool-use-bash', repo, B), opts));
  assert.equal(denied['permissionDecision'], 'deny');
  assert.match(
    String(denied['permissionDecisionReason']),
    new RegExp(`git add\` would change the shared state of worktree .*copilot:${A}`),
  );
  assert.match(String(denied['permissionDecisionReason']), /lanes commit -m "MESSAGE" -- PATH…/);
  const readOnly = fixture('copilot', 'pre-tool-use-bash', repo, B, (p) => {
    p['toolArgs'] = JSON.stringify({ command: 'git status && git diff --stat' });
  });
  const ok = await hook('copilot', 'pre-tool-use', readOnly, opts);
  assert.deepEqual([ok.code, ok.stdout], [0, '']);
});

test("Copilot CLI running lanes' Claude Code hooks (it reads .claude/settings.json) acts as the Copilot session, answers in both formats, and stays silent once lanes' Copilot hooks are installed", async () => {
  const { repo, env, opts } = world();
  const viaClaude = { ...opts, env: { ...env, COPILOT_CLI: '1' } };
  await hook('copilot', 'session-start', fixture('copilot', 'session-start', repo, A), opts);
  const claimed = await lanes(['claim', 'path:src/billing'], {
    ...opts,
    env: { ...env, LANES_SESSION: `copilot:${A}` },
  });
  assert.equal(claimed.code, 0, claimed.stderr);
  // A's own edit reaches lanes through the Claude Code entry too: it is A's, not another session's.
  const own = await hook(
    'claude-code',
    'pre-tool-use',
    fixture('copilot', 'claude-format-pre-tool-use', repo, A),
    viaClaude,
  );
  assert.deepEqual([own.code, own.stdout], [0, ''], 'its own claim does not stop it');

  const start = answer(
    await hook('claude-code', 'session-start', fixture('copilot', 'claude-format-session-start', repo, B), viaClaude),
  );
  assert.match(String(start['additionalContext']), new RegExp(`you are session copilot:${B}`));
  const ids = (JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as { id: string }[]).map((s) => s.id).sort();
  assert.deepEqual(ids, [`copilot:${A}`, `copilot:${B}`], 'no Claude Code session for a Copilot process');
  const denied = answer(
    await hook('claude-code', 'pre-tool-use', fixture('copilot', 'claude-format-pre-tool-use', repo, B), viaClaude),
  );
  assert.equal(denied['permissionDecision'], 'deny');
  assert.match(String(denied['permissionDecisionReason']), new RegExp(`claimed by session copilot:${A}`));
  const claude = denied['hookSpecificOutput'] as Record<string, string>;
  assert.equal(claude['permissionDecision'], 'deny');

  // With lanes' Copilot hooks installed, they answer the event; the Claude Code entry stays silent.
  assert.equal((await lanes(['hooks', 'install', 'copilot'], opts)).code, 0);
  const silent = await hook(
    'claude-code',
    'pre-tool-use',
    fixture('copilot', 'claude-format-pre-tool-use', repo, B),
    viaClaude,
  );
  assert.deepEqual([silent.code, silent.stdout], [0, '']);
});
