import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { answer, fixture, hook, world } from '../helpers/hooks.js';

// What each agent's own runner forwards to its model (issue 12): Gemini reads context only after
// a tool (AfterTool additionalContext) and a BeforeTool deny's reason; Cursor's preToolUse forwards
// permission, user_message, updated_input and additional_context, and gives the model the
// user_message of a deny; Cursor running Claude Code's hooks reads Claude's deny only behind an
// option that is off, so that answer carries Cursor's fields as well.
const A = 'aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa';
const B = 'bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb';

const at = (file: string) => (p: Record<string, unknown>) => {
  (p['tool_input'] as Record<string, string>)['file_path'] = file;
};

test('Gemini: the early-conflict warning reaches the model in AfterTool additionalContext, the user in BeforeTool', async () => {
  const { repo, opts } = world();
  const other = join(repo, 'src', 'other.ts');
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, A), opts);
  await hook('claude-code', 'post-tool-use', fixture('claude-code', 'post-tool-use-edit', repo, A, at(other)), opts);
  await hook('gemini', 'session-start', fixture('gemini', 'session-start', repo, B), opts);

  const before = answer(
    await hook('gemini', 'before-tool', fixture('gemini', 'before-tool-replace', repo, B, at(other)), opts),
  );
  assert.deepEqual(Object.keys(before), ['systemMessage'], 'BeforeTool: nothing Gemini would drop');

  const afterPayload = fixture('gemini', 'before-tool-replace', repo, B, (p) => {
    at(other)(p);
    p['hook_event_name'] = 'AfterTool';
    p['tool_response'] = { llmContent: 'Successfully modified file', returnDisplay: 'ok' };
  });
  const after = answer(await hook('gemini', 'after-tool', afterPayload, opts));
  const out = after['hookSpecificOutput'] as Record<string, string>;
  assert.equal(out['hookEventName'], 'AfterTool');
  assert.match(
    out['additionalContext'] ?? '',
    new RegExp(`early conflict warning: src/other.ts also changed by session claude-code:${A}`),
  );
  assert.match(out['additionalContext'] ?? '', /lanes conflicts/);

  // An edit nobody else touched: AfterTool says nothing to the model.
  const quiet = answer(
    await hook('gemini', 'after-tool', { ...afterPayload, tool_input: { file_path: join(repo, 'README.md') } }, opts),
  );
  assert.deepEqual(quiet, {});
});

test('Cursor: a deny gives the model its instructions in user_message; a warning is additional_context deciding nothing', async () => {
  const { repo, env, opts } = world();
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, A), opts);
  const claim = await lanes(['claim', 'path:src/billing/'], {
    env: { ...env, LANES_SESSION: `claude-code:${A}` },
    cwd: repo,
  });
  assert.equal(claim.code, 0, claim.stderr);
  await hook(
    'claude-code',
    'post-tool-use',
    fixture('claude-code', 'post-tool-use-edit', repo, A, at(join(repo, 'src', 'other.ts'))),
    opts,
  );

  const deny = answer(await hook('cursor', 'pre-tool-use', fixture('cursor', 'pre-tool-use', repo, B), opts));
  assert.equal(deny['permission'], 'deny');
  assert.match(String(deny['user_message']), /claimed by session claude-code:.*lanes claim path:src\/billing\/ --wait/);

  const warn = answer(
    await hook(
      'cursor',
      'pre-tool-use',
      fixture('cursor', 'pre-tool-use', repo, B, at(join(repo, 'src', 'other.ts'))),
      opts,
    ),
  );
  assert.deepEqual(Object.keys(warn), ['additional_context'], 'no permission: Cursor’s own approval stays in charge');
  assert.match(String(warn['additional_context']), /early conflict warning: src\/other\.ts/);
});

test('Cursor through Claude Code hooks only: the deny carries Cursor’s permission fields and Claude’s', async () => {
  const { repo, env, opts } = world();
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, A), opts);
  await lanes(['claim', 'path:src/billing/'], { env: { ...env, LANES_SESSION: `claude-code:${A}` }, cwd: repo });
  // Cursor's payload to lanes' Claude Code entry (no lanes Cursor hooks installed).
  const payload = fixture('cursor', 'pre-tool-use', repo, B, (p) => {
    p['hook_event_name'] = 'PreToolUse';
  });
  const r = answer(await hook('claude-code', 'pre-tool-use', payload, opts));
  assert.equal(r['permission'], 'deny');
  assert.match(String(r['user_message']), /lanes claim path:src\/billing\/ --wait/);
  const claude = r['hookSpecificOutput'] as Record<string, string>;
  assert.equal(claude['permissionDecision'], 'deny');
});

test('installed Gemini entries have one name each, so one can be disabled alone; Codex is told about trust, not the old feature flag', async () => {
  const repo = gitRepo();
  const opts = { env: { ...lanesEnv(), HOME: tmp() }, cwd: repo };
  const r = await lanes(['hooks', 'install', 'gemini', 'codex'], opts);
  assert.equal(r.code, 0, r.stderr);
  const names = [...readFileSync(join(repo, '.gemini', 'settings.json'), 'utf8').matchAll(/"name": "([^"]+)"/g)].map(
    (m) => m[1],
  );
  assert.equal(names.length, 7);
  assert.equal(new Set(names).size, 7, names.join(', '));
  assert.doesNotMatch(r.stdout, /codex_hooks/);
  assert.match(r.stdout, /codex exec.*trust/);
});
