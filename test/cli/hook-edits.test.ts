import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lanes, node, tmp } from '../helpers/env.js';
import { answer, fixture, hook, world } from '../helpers/hooks.js';

// Two simulated agent sessions in one repository: A claims and edits, B is stopped or warned in
// each agent's exact documented output format.
const A = 'aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa';
const B = 'bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb';

test('B is denied an edit of a path A claimed, in every agent format; allowed again once A ended', async () => {
  const { repo, env, opts } = world();
  const envFile = join(tmp(), 'claude-env');
  const start = answer(
    await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, A), {
      ...opts,
      env: { ...env, CLAUDE_ENV_FILE: envFile },
    }),
  );
  const ctx = start['hookSpecificOutput'] as Record<string, string>;
  assert.equal(ctx['hookEventName'], 'SessionStart');
  assert.match(ctx['additionalContext'] ?? '', new RegExp(`you are session claude-code:${A}`));
  assert.equal(readFileSync(envFile, 'utf8'), `export LANES_SESSION='claude-code:${A}'\n`);
  const claimed = await lanes(['claim', 'path:src/billing', 'ticket:SEAT-1'], {
    ...opts,
    env: { ...env, LANES_SESSION: `claude-code:${A}` },
  });
  assert.equal(claimed.code, 0, claimed.stderr);
  assert.match(claimed.stdout, /path:src\/billing\/ /, 'an existing directory is claimed as a directory');
  // Another session starting is told who holds what (the live sessions' claims, read in one go).
  const other = answer(
    await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, B), opts),
  );
  assert.match(
    (other['hookSpecificOutput'] as Record<string, string>)['additionalContext'] ?? '',
    new RegExp(
      `- claude-code:${A} \\(ticket SEAT-1\\), SAME worktree as you; claims: path:src/billing/, ticket:SEAT-1\\n`,
    ),
  );

  // Claude Code: Edit of a file inside the claimed directory.
  const claude = await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-edit', repo, B), opts);
  assert.equal(claude.code, 0);
  const cOut = answer(claude);
  assert.deepEqual(Object.keys(cOut), ['hookSpecificOutput']);
  const c = cOut['hookSpecificOutput'] as Record<string, string>;
  assert.deepEqual(Object.keys(c).sort(), ['hookEventName', 'permissionDecision', 'permissionDecisionReason']);
  assert.equal(c['hookEventName'], 'PreToolUse');
  assert.equal(c['permissionDecision'], 'deny');
  assert.match(
    c['permissionDecisionReason'] ?? '',
    new RegExp(`src/billing/seat.ts is claimed by session claude-code:${A}`),
  );
  assert.match(c['permissionDecisionReason'] ?? '', /lanes claim path:src\/billing\/ --wait/);

  // Codex: apply_patch whose first target is the claimed file (paths relative to cwd).
  const codex = answer(
    await hook('codex', 'pre-tool-use', fixture('codex', 'pre-tool-use-apply-patch', repo, B), opts),
  );
  const x = codex['hookSpecificOutput'] as Record<string, string>;
  assert.equal(x['hookEventName'], 'PreToolUse');
  assert.equal(x['permissionDecision'], 'deny');
  assert.match(x['permissionDecisionReason'] ?? '', /src\/billing\/seat\.ts is claimed/);
  assert.match(
    x['permissionDecisionReason'] ?? '',
    /src\/billing\/failover\.ts is claimed/,
    'an added file in the claimed directory too',
  );

  // Gemini CLI: replace and write_file.
  for (const name of ['before-tool-replace', 'before-tool-write-file']) {
    const g = answer(await hook('gemini', 'before-tool', fixture('gemini', name, repo, B), opts));
    assert.deepEqual(Object.keys(g).sort(), ['decision', 'reason']);
    assert.equal(g['decision'], 'deny');
    assert.match(String(g['reason']), new RegExp(`claimed by session claude-code:${A} \\(ticket SEAT-1`));
  }

  // Cursor: preToolUse Write.
  const cur = answer(await hook('cursor', 'pre-tool-use', fixture('cursor', 'pre-tool-use', repo, B), opts));
  assert.equal(cur['permission'], 'deny');
  assert.match(String(cur['agent_message']), /src\/billing\/seat\.ts is claimed/);
  // Cursor gives the model the user_message of a deny: it carries the instructions.
  assert.match(
    String(cur['user_message']),
    /src\/billing\/seat\.ts is claimed.*lanes claim path:src\/billing\/ --wait/,
  );

  // A path nobody claimed (non-ASCII, not existing yet) is allowed silently.
  const free = await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-write', repo, B), opts);
  assert.deepEqual([free.code, free.stdout], [0, '']);

  // A ends (its session-end hook): the claim goes with it.
  const end = await hook('claude-code', 'session-end', fixture('claude-code', 'session-end', repo, A), opts);
  assert.equal(end.code, 0, end.stderr);
  const after = await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-edit', repo, B), opts);
  assert.deepEqual([after.code, after.stdout], [0, '']);
});

test('B editing a file A changed but did not claim is allowed with an early-conflict warning; paths outside the repository pass silently', async () => {
  const { repo, opts } = world();
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, A), opts);
  const other = join(repo, 'src', 'other.ts');
  const post = await hook(
    'claude-code',
    'post-tool-use',
    fixture('claude-code', 'post-tool-use-edit', repo, A, (p) => {
      (p['tool_input'] as Record<string, string>)['file_path'] = other;
    }),
    opts,
  );
  assert.deepEqual([post.code, post.stdout], [0, '']);

  const warned = answer(
    await hook(
      'claude-code',
      'pre-tool-use',
      fixture('claude-code', 'pre-tool-use-edit', repo, B, (p) => {
        (p['tool_input'] as Record<string, string>)['file_path'] = other;
      }),
      opts,
    ),
  );
  const w = warned['hookSpecificOutput'] as Record<string, string>;
  assert.equal(w['hookEventName'], 'PreToolUse');
  assert.equal(
    w['permissionDecision'],
    undefined,
    'a warning decides nothing (it must not bypass the permission prompts)',
  );
  assert.match(w['additionalContext'] ?? '', new RegExp(`src/other.ts also changed by session claude-code:${A}`));
  assert.match(String(warned['systemMessage']), /warning/);

  const g = answer(
    await hook(
      'gemini',
      'before-tool',
      fixture('gemini', 'before-tool-replace', repo, B, (p) => {
        (p['tool_input'] as Record<string, string>)['file_path'] = other;
      }),
      opts,
    ),
  );
  // Gemini's BeforeTool has no context for the model: the user is told; the model by AfterTool (hook-model-context).
  assert.deepEqual(Object.keys(g), ['systemMessage']);
  assert.match(String(g['systemMessage']), /warning: src\/other\.ts also changed/);

  const outside = join(tmp(), 'elsewhere.ts');
  const out = await hook(
    'claude-code',
    'pre-tool-use',
    fixture('claude-code', 'pre-tool-use-edit', repo, B, (p) => {
      (p['tool_input'] as Record<string, string>)['file_path'] = outside;
    }),
    opts,
  );
  assert.deepEqual([out.code, out.stdout, out.stderr], [0, '', '']);
  const gOutside = await hook(
    'gemini',
    'before-tool',
    fixture('gemini', 'before-tool-write-file', repo, B, (p) => {
      (p['tool_input'] as Record<string, string>)['file_path'] = outside;
    }),
    opts,
  );
  assert.deepEqual([gOutside.code, gOutside.stdout.trim()], [0, '{}'], 'Gemini reads JSON on stdout even for an allow');
});

test('git add/commit/stash in a worktree shared with another live session is denied; read-only git and own worktrees are not', async () => {
  const { repo, env, opts } = world();
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, A), opts);
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, B), opts);
  const bash = (command: string, cwd = repo) =>
    hook(
      'claude-code',
      'pre-tool-use',
      fixture('claude-code', 'pre-tool-use-bash', repo, B, (p) => {
        p['cwd'] = cwd;
        (p['tool_input'] as Record<string, string>)['command'] = command;
      }),
      { env, cwd },
    );
  const denied = answer(await bash("git add -- src/billing && git commit -m 'seat failover'"));
  const d = denied['hookSpecificOutput'] as Record<string, string>;
  assert.equal(d['permissionDecision'], 'deny');
  assert.match(
    d['permissionDecisionReason'] ?? '',
    new RegExp(`git add\` would change the shared state of worktree .*claude-code:${A}`),
  );
  assert.match(d['permissionDecisionReason'] ?? '', /lanes commit -m "MESSAGE" -- PATH…/);
  assert.match(d['permissionDecisionReason'] ?? '', /lanes start --worktree/);
  for (const ok of ['git status && git diff --stat', 'git log --oneline | head -5', 'npm test']) {
    const r = await bash(ok);
    assert.deepEqual([r.code, r.stdout], [0, ''], ok);
  }
  const stash = answer(
    await hook(
      'gemini',
      'before-tool',
      fixture('gemini', 'before-tool-write-file', repo, B, (p) => {
        p['tool_name'] = 'run_shell_command';
        p['tool_input'] = { command: 'git stash' };
      }),
      opts,
    ),
  );
  assert.equal(stash['decision'], 'deny');
  assert.match(String(stash['reason']), /lanes snapshot/);

  // B moves to a worktree of its own (its session re-attaches there): the same commit is fine.
  const own = join(tmp(), 'b-worktree');
  execFileSync('git', ['worktree', 'add', '-q', '-b', 'b-work', own], { cwd: repo });
  await hook(
    'claude-code',
    'session-start',
    fixture('claude-code', 'session-start', own, B, (p) => {
      p['source'] = 'resume';
    }),
    { env, cwd: own },
  );
  const mine = await bash('git add -A && git commit -m mine', own);
  assert.deepEqual([mine.code, mine.stdout], [0, '']);
  // …but `git -C` into the shared main worktree is still refused.
  const viaC = answer(await bash(`git -C ${repo} commit -am x`, own));
  assert.equal((viaC['hookSpecificOutput'] as Record<string, string>)['permissionDecision'], 'deny');
});

test('at the end of its turn a session in its own worktree records what git says it changed (shell edits, commits on its branch), so others are warned', async () => {
  const { repo, env, opts } = world();
  const wt = join(tmp(), 'a-own');
  execFileSync('git', ['worktree', 'add', '-q', '-b', 'a-work', wt], { cwd: repo });
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', wt, A), { env, cwd: wt });
  // A changes files without any edit hook: one by a shell command, one committed on its branch.
  writeFileSync(join(wt, 'src', 'other.ts'), 'export const other = 2 // by sed\n');
  writeFileSync(join(wt, 'src', 'billing', 'seat.ts'), 'export const limit = 3\n');
  execFileSync('git', ['commit', '-qm', 'seat limit 3', '--', 'src/billing/seat.ts'], { cwd: wt });
  const editOf = (file: string) =>
    fixture('claude-code', 'pre-tool-use-edit', repo, B, (p) => {
      (p['tool_input'] as Record<string, string>)['file_path'] = join(repo, file);
    });
  const before = await hook('claude-code', 'pre-tool-use', editOf('src/other.ts'), opts);
  assert.equal(before.stdout, '', 'nothing recorded yet');
  const stop = await hook('claude-code', 'stop', fixture('claude-code', 'stop', wt, A), { env, cwd: wt });
  assert.equal(stop.code, 0, stop.stderr);
  for (const file of ['src/other.ts', 'src/billing/seat.ts']) {
    const w = answer(await hook('claude-code', 'pre-tool-use', editOf(file), opts));
    assert.match(
      String((w['hookSpecificOutput'] as Record<string, string>)['additionalContext']),
      new RegExp(`${file} also changed by session claude-code:${A}`),
      file,
    );
  }
  // Reverted and the branch reset: the next turn end clears the record.
  execFileSync('git', ['checkout', '-q', '--', 'src/other.ts'], { cwd: wt });
  execFileSync('git', ['reset', '-q', '--hard', 'main'], { cwd: wt });
  await hook('claude-code', 'stop', fixture('claude-code', 'stop', wt, A), { env, cwd: wt });
  assert.equal((await hook('claude-code', 'pre-tool-use', editOf('src/billing/seat.ts'), opts)).stdout, '');
});

test('a claim of a session that died without ending does not block an edit (it is still in the store)', async () => {
  const { repo, env, opts } = world();
  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const dead = (await lanes(['start', '--pid', pid!], opts)).stdout.trim();
  const claimed = await lanes(['claim', 'path:src/billing'], { ...opts, env: { ...env, LANES_SESSION: dead } });
  assert.equal(claimed.code, 0, claimed.stderr);
  const edit = fixture('claude-code', 'pre-tool-use-edit', repo, B);
  const whileAlive = answer(await hook('claude-code', 'pre-tool-use', edit, opts));
  assert.equal((whileAlive['hookSpecificOutput'] as Record<string, string>)['permissionDecision'], 'deny');
  owner.proc.kill('SIGKILL');
  await owner.exited;
  assert.match((await lanes(['claims'], opts)).stdout, /path:src\/billing\//, 'the claim is still in the store');
  const r = await hook('claude-code', 'pre-tool-use', edit, opts);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /deny/, 'a dead holder blocks nobody');
});
