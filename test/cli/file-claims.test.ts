import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lanes, tmp } from '../helpers/env.js';
import { answer, fixture, hook, world } from '../helpers/hooks.js';

// Fixed paths outside the repository (issue 23, item 7): a machine-scoped `file:` claim on an
// absolute path is enforced by every agent's edit check; files every session shares (~/.gitconfig,
// ~/.npmrc, ~/.config/gh/, … or [shared] files of the user config) need that claim first; an edit
// outside the repository is recorded for the early-conflict warning. Before, the edit check ignored
// every path outside the worktree.
const A = 'aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa';
const B = 'bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb';
const X = '019a7c2e-1111-7222-8333-944455556666';

test('file: claims and the shared-files list guard the machine files every session shares', async () => {
  const { repo, env: base } = world();
  const home = tmp('lanes-home-dir-');
  const env = { ...base, HOME: home };
  const opts = { env, cwd: repo };
  for (const id of [A, B])
    await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, id), opts);
  const write = (id: string, file: string) =>
    fixture('claude-code', 'pre-tool-use-write', repo, id, (p) => {
      (p['tool_input'] as Record<string, string>)['file_path'] = file;
    });
  // An allow with nothing to say is an empty answer.
  const pre = async (agent: string, payload: unknown) => {
    const r = await hook(agent, 'pre-tool-use', payload, opts);
    return (r.stdout.trim() ? (answer(r)['hookSpecificOutput'] ?? {}) : {}) as Record<string, string>;
  };
  const npmrc = join(home, '.npmrc');

  // A claims ~/.npmrc (file:~/… is its home's); B's edit of it is denied, A's own allowed.
  const claim = await lanes(['claim', 'file:~/.npmrc', '--session', `claude-code:${A}`], opts);
  assert.equal(claim.code, 0, claim.stderr);
  assert.match(claim.stdout, new RegExp(`claimed file:${npmrc} \\(token 1\\)`));
  const denied = await pre('claude-code', write(B, npmrc));
  assert.equal(denied['permissionDecision'], 'deny', JSON.stringify(denied));
  assert.match(denied['permissionDecisionReason'] ?? '', new RegExp(`${npmrc} is claimed by session claude-code:${A}`));
  assert.notEqual((await pre('claude-code', write(A, npmrc)))['permissionDecision'], 'deny');
  // Codex's apply_patch naming the file: the same rule.
  const patch = fixture('codex', 'pre-tool-use-apply-patch', repo, X, (p) => {
    (p['tool_input'] as Record<string, string>)['command'] =
      `*** Begin Patch\n*** Update File: ${npmrc}\n@@\n-a\n+b\n*** End Patch`;
  });
  await hook('codex', 'session-start', fixture('codex', 'session-start', repo, X), opts);
  assert.equal((await pre('codex', patch))['permissionDecision'], 'deny');

  // ~/.gitconfig is on the default shared list: an agent edits it only under its own claim.
  const gitconfig = join(home, '.gitconfig');
  const unclaimed = await pre('claude-code', write(B, gitconfig));
  assert.equal(unclaimed['permissionDecision'], 'deny');
  assert.match(
    unclaimed['permissionDecisionReason'] ?? '',
    new RegExp(`Claim it first, then edit: \`lanes claim file:${gitconfig}\``),
  );
  assert.equal((await lanes(['claim', `file:${gitconfig}`, '--session', `claude-code:${B}`], opts)).code, 0);
  assert.notEqual((await pre('claude-code', write(B, gitconfig)))['permissionDecision'], 'deny');
  // A directory on the list covers its files.
  assert.equal(
    (await pre('claude-code', write(A, join(home, '.config', 'gh', 'hosts.yml'))))['permissionDecision'],
    'deny',
  );

  // Any other file outside the repository: allowed, and recorded for the early-conflict warning.
  const notes = join(tmp('lanes-outside-'), 'notes.txt');
  assert.notEqual((await pre('claude-code', write(A, notes)))['permissionDecision'], 'deny');
  const post = fixture('claude-code', 'post-tool-use-edit', repo, A, (p) => {
    (p['tool_input'] as Record<string, string>)['file_path'] = notes;
  });
  await hook('claude-code', 'post-tool-use', post, opts);
  const warned = await pre('claude-code', write(B, notes));
  assert.match(
    warned['additionalContext'] ?? '',
    new RegExp(`lanes early conflict warning: ${notes} also edited by session claude-code:${A}`),
  );

  // The user config's [shared] files replaces the defaults (an empty list: none).
  mkdirSync(join(home, '.config', 'lanes'), { recursive: true });
  writeFileSync(join(home, '.config', 'lanes', 'config.toml'), '[shared]\nfiles = []\n');
  const freed = await pre('claude-code', write(A, join(home, '.ssh', 'config')));
  assert.notEqual(freed['permissionDecision'], 'deny', JSON.stringify(freed));
  // A list entry that is not absolute (or ~/…) is refused, naming the key.
  writeFileSync(join(home, '.config', 'lanes', 'config.toml'), '[shared]\nfiles = ["relative/x"]\n');
  const bad = await lanes(['env', '--session', `claude-code:${A}`], opts);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /shared\.files: expected a list of paths, each absolute or ~\//);
  // A file claim names an absolute path.
  const rel = await lanes(['claim', 'file:relative/x', '--session', `claude-code:${A}`], opts);
  assert.equal(rel.code, 2);
  assert.match(rel.stderr, /a file claim names an absolute path/);
});
