import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLI, lanes, node, tmp } from '../helpers/env.js';
import type { Child } from '../helpers/env.js';
import { answer, fixture, hook, world } from '../helpers/hooks.js';

// OpenCode end to end. First `lanes hook opencode EVENT` with the samples of what lanes' plugin
// sends (test/fixtures/agent-hooks/opencode); then the plugin itself, as `lanes hooks install
// opencode` writes it, loaded and called the way OpenCode calls its plugins
// (test/fixtures/opencode-host.mjs), running the real lanes CLI against a real repository and store.
const A = 'a1a1a1a1-1111-4111-8111-a1a1a1a1a1a1';
const B = 'ses_7f3a2b1c9d8e6f5a4b3c2d1e0f';

/** Session A (a Copilot CLI session) holds src/billing and has edited src/other.ts. */
async function holderA(repo: string, env: Record<string, string>): Promise<void> {
  const opts = { env, cwd: repo };
  await hook('copilot', 'session-start', fixture('copilot', 'session-start', repo, A), opts);
  const claim = await lanes(['claim', 'path:src/billing'], { ...opts, env: { ...env, LANES_SESSION: `copilot:${A}` } });
  assert.equal(claim.code, 0, claim.stderr);
  const edited = fixture('copilot', 'post-tool-use-edit', repo, A, (p) => {
    p['toolArgs'] = JSON.stringify({ path: join(repo, 'src', 'other.ts') });
  });
  assert.equal((await hook('copilot', 'post-tool-use', edited, opts)).code, 0);
}

test('lanes hook opencode: register and brief (with LANES_SESSION for its shell), block a claimed path with the instructions, warn after the tool, deny shared-worktree git, record edits, end with a snapshot', async () => {
  const { repo, env, opts } = world();
  await holderA(repo, env);
  const start = answer(
    await hook('opencode', 'session.created', fixture('opencode', 'session-created', repo, B), opts),
  );
  assert.match(String(start['context']), new RegExp(`you are session opencode:${B}`));
  assert.deepEqual(start['env'], { LANES_SESSION: `opencode:${B}` });

  for (const name of ['tool-execute-before-edit', 'tool-execute-before-write']) {
    const blocked = answer(await hook('opencode', 'tool.execute.before', fixture('opencode', name, repo, B), opts));
    assert.deepEqual(Object.keys(blocked), ['block'], name);
    assert.match(String(blocked['block']), new RegExp(`src/billing/\\w+\\.ts is claimed by session copilot:${A}`));
    assert.match(String(blocked['block']), /lanes claim path:src\/billing\/ --wait/);
  }
  const onOther = (name: string) =>
    fixture('opencode', name, repo, B, (p) => {
      p['args'] = { filePath: 'src/other.ts', oldString: '1', newString: '2' };
    });
  // Before the tool OpenCode has no place for context: nothing; after it, the warning joins the tool's output.
  assert.deepEqual(
    answer(await hook('opencode', 'tool.execute.before', onOther('tool-execute-before-edit'), opts)),
    {},
  );
  const after = answer(await hook('opencode', 'tool.execute.after', onOther('tool-execute-after-edit'), opts));
  assert.match(String(after['context']), new RegExp(`src/other\\.ts also changed by session copilot:${A}`));
  const touched = await lanes(['state', 'get', 'lanes:touched', '--session', `opencode:${B}`], opts);
  assert.deepEqual(JSON.parse(touched.stdout), ['src/other.ts'], 'the edit is recorded');

  const git = answer(
    await hook('opencode', 'tool.execute.before', fixture('opencode', 'tool-execute-before-bash', repo, B), opts),
  );
  assert.match(String(git['block']), new RegExp(`git add\` would change the shared state of worktree .*copilot:${A}`));
  assert.match(String(git['block']), /lanes commit -m "MESSAGE" -- PATH…/);

  assert.equal((await hook('opencode', 'session.idle', fixture('opencode', 'session-idle', repo, B), opts)).code, 0);
  writeFileSync(join(repo, 'src', 'other.ts'), 'export const other = 2 // unsaved\n');
  const end = await hook('opencode', 'session.deleted', fixture('opencode', 'session-deleted', repo, B), opts);
  assert.match(
    end.stderr,
    new RegExp(`session opencode:${B} ended, 0 claim\\(s\\) released, work saved in refs/lanes/snapshots/`),
  );
});

/** One hook call through the host, as OpenCode makes it; the plugin's answer. */
async function call(host: Child, n: number, hookName: string, input: unknown, output: unknown = {}) {
  host.send(JSON.stringify({ n, hook: hookName, input, output }));
  const m = await host.waitFor(new RegExp(`^answer ${n} (.*)$`, 'm'));
  return JSON.parse(m[1] ?? '') as { ok: boolean; error?: string; output: Record<string, unknown> };
}

test("lanes' OpenCode plugin, called as OpenCode calls it: briefing in the system prompt, LANES_SESSION in shells, a claimed edit thrown with lanes' reason, the warning after the tool's output, subagents act as their session, exit ends the session", async () => {
  const { repo, env, opts } = world();
  await holderA(repo, env);
  const install = await lanes(['hooks', 'install', 'opencode', '--command', `${process.execPath} ${CLI}`], opts);
  assert.equal(install.code, 0, install.stderr);
  // Node loads an ES module by its extension; OpenCode (Bun) loads the .js as it is.
  const plugin = join(tmp(), 'lanes.mjs');
  copyFileSync(join(repo, '.opencode', 'plugins', 'lanes.js'), plugin);
  const host = node('opencode-host.mjs', [plugin, repo], { env, cwd: repo });
  await host.waitFor(/^ready/m);

  await call(host, 1, 'event', {
    event: { type: 'session.created', properties: { info: { id: B, directory: repo } } },
  });
  const system = await call(host, 2, 'experimental.chat.system.transform', { sessionID: B }, { system: ['base'] });
  assert.equal((system.output['system'] as string[])[0], 'base');
  assert.match(String((system.output['system'] as string[])[1]), new RegExp(`you are session opencode:${B}`));
  const shell = await call(host, 3, 'shell.env', { cwd: repo, sessionID: B }, { env: {} });
  assert.deepEqual(shell.output['env'], { LANES_SESSION: `opencode:${B}` });

  const seat = { filePath: join(repo, 'src', 'billing', 'seat.ts'), oldString: '1', newString: '2' };
  const blocked = await call(
    host,
    4,
    'tool.execute.before',
    { tool: 'edit', sessionID: B, callID: 'c1' },
    { args: seat },
  );
  assert.equal(blocked.ok, false, 'the plugin throws');
  assert.match(blocked.error ?? '', new RegExp(`src/billing/seat\\.ts is claimed by session copilot:${A}`));
  assert.match(blocked.error ?? '', /lanes claim path:src\/billing\/ --wait/);

  const other = { filePath: 'src/other.ts', oldString: '1', newString: '2' };
  const before = await call(
    host,
    5,
    'tool.execute.before',
    { tool: 'edit', sessionID: B, callID: 'c2' },
    { args: other },
  );
  assert.equal(before.ok, true);
  const done = await call(
    host,
    6,
    'tool.execute.after',
    { tool: 'edit', sessionID: B, callID: 'c2', args: other },
    { title: 'src/other.ts', output: 'Edit applied successfully.', metadata: {} },
  );
  assert.match(
    String(done.output['output']),
    /^Edit applied successfully\.\n\n.*src\/other\.ts also changed by session copilot:/s,
  );

  // B claims a directory; its subagent (a child session) edits there: its own session's work, allowed.
  mkdirSync(join(repo, 'src', 'sub'));
  const claim = await lanes(['claim', 'path:src/sub'], { ...opts, env: { ...env, LANES_SESSION: `opencode:${B}` } });
  assert.equal(claim.code, 0, claim.stderr);
  const child = 'ses_child0000000000000000001';
  await call(host, 7, 'event', {
    event: { type: 'session.created', properties: { info: { id: child, parentID: B, directory: repo } } },
  });
  const sub = { filePath: join(repo, 'src', 'sub', 'x.ts'), content: 'x' };
  const byChild = await call(
    host,
    8,
    'tool.execute.before',
    { tool: 'write', sessionID: child, callID: 'c3' },
    { args: sub },
  );
  assert.equal(byChild.ok, true, byChild.error);

  // OpenCode exits: the plugin ends its session (snapshot, claims released).
  host.proc.stdin.end();
  assert.equal((await host.exited).code, 0, host.stderr);
  const ls = JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as { id: string; state: string }[];
  assert.equal(ls.find((s) => s.id === `opencode:${B}`)?.state, 'ended');
  assert.equal(ls.filter((s) => s.id.includes('child')).length, 0, 'the subagent is no session of its own');
  assert.doesNotMatch((await lanes(['claims', '--all'], opts)).stdout, /src\/sub/);
  assert.equal(readFileSync(join(repo, 'src', 'other.ts'), 'utf8'), 'export const other = 1\n');
});
