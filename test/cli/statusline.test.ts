import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';
import { fixture, hook } from '../helpers/hooks.js';

// `lanes statusline` as Claude Code's statusLine runs it: its status JSON on stdin, one line out.
const A = 'aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa';
const B = 'bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb';

/** The status JSON Claude Code pipes to its statusLine command (documented fields). */
function status(session: string, dir: string): string {
  return JSON.stringify({
    hook_event_name: 'Status',
    session_id: session,
    transcript_path: '/tmp/t.jsonl',
    cwd: dir,
    model: { id: 'claude-opus', display_name: 'Opus' },
    workspace: { current_dir: dir, project_dir: dir },
    version: '2.1.197',
    output_style: { name: 'default' },
    cost: { total_cost_usd: 0.01, total_duration_ms: 1000 },
  });
}

test('the status line names the session, its claims, the other live sessions and overlapping edits', async () => {
  const repo = gitRepo();
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src', 'other.ts'), 'x\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'src'], { cwd: repo });
  const env = lanesEnv();
  const opts = { env, cwd: repo };
  const line = async (s: string) => {
    const r = await lanes(['statusline'], { ...opts, input: status(s, repo) });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split('\n').length, 2, `one line: ${r.stdout}`);
    return r.stdout.trim();
  };
  assert.match(await line(A), /^lanes: no session \(lanes hooks install claude-code\)$/);

  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, A), opts);
  assert.equal(await line(A), 'lanes claude-code:aaaaaaaa · alone here');
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, B), opts);
  const claim = await lanes(['claim', 'path:src/', 'ticket:SEAT-9'], {
    ...opts,
    env: { ...env, LANES_SESSION: `claude-code:${A}` },
  });
  assert.equal(claim.code, 0, claim.stderr);
  assert.equal(await line(A), 'lanes claude-code:aaaaaaaa · SEAT-9 · claims path:src/ · 1 other session');

  const edit = (s: string) =>
    hook(
      'claude-code',
      'post-tool-use',
      fixture('claude-code', 'post-tool-use-edit', repo, s, (p) => {
        (p['tool_input'] as Record<string, string>)['file_path'] = join(repo, 'src', 'other.ts');
      }),
      opts,
    );
  await edit(A);
  assert.doesNotMatch(await line(B), /⚠/, 'B edited nothing yet');
  await edit(B);
  assert.equal(
    await line(B),
    'lanes claude-code:bbbbbbbb · 1 other session · ⚠ src/other.ts also edited by claude-code:aaaaaaaa',
  );
  assert.match(await line(A), /⚠ src\/other\.ts also edited by claude-code:bbbbbbbb/);

  // Not Claude Code's JSON: still one line, exit 0 (a status line has no other channel).
  for (const input of ['not json', 'not json\n', '{"a":\n\n1', '\n\n']) {
    const bad = await lanes(['statusline'], { ...opts, input });
    assert.deepEqual([bad.code, bad.stdout.trim().startsWith('lanes: ')], [0, true]);
    // One line, whatever the error quotes of the input (it used to print two for "not json\n").
    assert.equal(bad.stdout.split('\n').length, 2, JSON.stringify(bad.stdout));
  }
});
