import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, owner, tmp } from '../helpers/env.js';
import { fixture, hook } from '../helpers/hooks.js';

const HOOK_ID = '3f2a9c1e-5b7d-4e21-9a0c-6d8e1f2b3c4d';

// Issue 46, item 1: nothing a cloned repository's lanes.toml says runs until its person allowed
// that exact content. Each path is tried on a real clone of a bare origin: the setup of a new
// worktree, the setup of a --base branch the user never checked out, a teardown an agent wrote
// into its worktree (ended by a person, and by the background reap), and [env] PATH naming the
// repository's own programs. Each one ran on the build before (the leak files were written).

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** A repository someone else wrote, as the user gets it: `git clone` of a bare origin. */
function cloned(files: Record<string, string>, branches: Record<string, Record<string, string>> = {}) {
  const author = gitRepo();
  const put = (fs: Record<string, string>) => {
    for (const [path, text] of Object.entries(fs)) {
      mkdirSync(join(author, path, '..'), { recursive: true });
      writeFileSync(join(author, path), text);
      if (path.startsWith('bin/')) chmodSync(join(author, path), 0o755);
      git(author, 'add', path);
    }
  };
  put(files);
  git(author, 'commit', '-qm', 'their config');
  for (const [name, fs] of Object.entries(branches)) {
    git(author, 'checkout', '-qb', name);
    put(fs);
    git(author, 'commit', '-qm', `their ${name}`);
    git(author, 'checkout', '-q', 'main');
  }
  const origin = join(tmp('lanes-trust-origin-'), 'origin.git');
  git(author, 'clone', '-q', '--bare', author, origin);
  const repo = join(tmp('lanes-trust-clone-'), 'shop');
  git(author, 'clone', '-q', origin, repo);
  const out = tmp('lanes-trust-out-');
  const env = { ...lanesEnv(), OUT: out, ANTHROPIC_API_KEY: 'sk-ant-secret-key', GITHUB_TOKEN: 'ghp_secrettoken' };
  return { repo, out, env, opts: { env, cwd: repo } };
}

const sessions = async (opts: { env: Record<string, string>; cwd: string }) =>
  JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as { id: string; state: string }[];

test('a clone’s [session] setup runs nothing until allowed; refused, nothing is made; allowed, it runs once', async () => {
  const w = cloned({
    'lanes.toml': `[session]\nsetup = 'env >> "$OUT/setup-env"'\nteardown = 'echo torn >> "$OUT/teardowns"'\n`,
  });
  const r = await lanes(['start', '--worktree', '--label', 'x', '--pid', String(process.pid)], {
    ...w.opts,
    input: '',
  });
  assert.ok(!existsSync(join(w.out, 'setup-env')), 'the setup did not run (no key left the machine)');
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stderr, /\[session\] setup = "env >> \\"\$OUT\/setup-env\\""/);
  assert.match(r.stderr, new RegExp(`fix: read it, then run \`lanes allow ${join(w.repo, 'lanes.toml')}\``));
  assert.deepEqual(await sessions(w.opts), [], 'no session');
  assert.equal(git(w.repo, 'worktree', 'list').trim().split('\n').length, 1, 'no worktree');
  assert.equal(git(w.repo, 'branch', '--list', 'lanes/*'), '', 'no branch');
  assert.ok(!existsSync(`${w.repo}.lanes`), 'not even the worktrees directory');
  assert.equal((await lanes(['claims', '--json'], w.opts)).stdout.trim(), '[]', 'no claim');

  const shown = await lanes(['allow', '--show', '--json'], w.opts);
  assert.equal(JSON.parse(shown.stdout).state, 'unknown');
  assert.equal((await lanes(['allow'], w.opts)).code, 0);
  const ok = await lanes(['start', '--worktree', '--label', 'x', '--json', '--pid', String(process.pid)], w.opts);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(readFileSync(join(w.out, 'setup-env'), 'utf8').match(/^ANTHROPIC_API_KEY=/gm)?.length, 1, 'once');
  const id = (JSON.parse(ok.stdout) as { id: string }).id;
  assert.equal((await lanes(['end', id, '--force'], w.opts)).code, 0);
  assert.equal(readFileSync(join(w.out, 'teardowns'), 'utf8'), 'torn\n');

  // A pull that changes the file: blocked again until allowed again; denied: refused, and said so.
  writeFileSync(join(w.repo, 'lanes.toml'), `[session]\nsetup = 'echo changed >> "$OUT/changed"'\n`);
  git(w.repo, '-c', 'user.name=Them', '-c', 'user.email=them@lanes.invalid', 'commit', '-qam', 'pulled');
  const changed = await lanes(['start', '--worktree', '--label', 'y', '--pid', String(process.pid)], w.opts);
  assert.equal(changed.code, 6, changed.stderr);
  assert.match(changed.stderr, /you have not allowed it/);
  await lanes(['deny'], w.opts);
  const denied = await lanes(['start', '--worktree', '--label', 'y', '--pid', String(process.pid)], w.opts);
  assert.equal(denied.code, 6);
  assert.match(denied.stderr, /you denied it/);
  assert.ok(!existsSync(join(w.out, 'changed')));
  const log = (await lanes(['log', '--kind', 'trust'], w.opts)).stdout;
  assert.match(log, /trust\.refuse/);
  assert.match(log, /trust\.allow/);
  assert.match(log, /trust\.deny/);
});

test('--base of a branch never checked out: its own setup needs its own approval (lanes allow --rev)', async () => {
  const w = cloned(
    { 'lanes.toml': `[session]\nsetup = 'echo main >> "$OUT/setups"'\n` },
    { pr: { 'lanes.toml': `[session]\nsetup = 'echo contributor >> "$OUT/setups"; env >> "$OUT/pr-env"'\n` } },
  );
  await lanes(['allow'], w.opts);
  const r = await lanes(
    ['start', '--worktree', '--base', 'origin/pr', '--label', 'review', '--pid', String(process.pid)],
    w.opts,
  );
  assert.ok(!existsSync(join(w.out, 'pr-env')), "the contributor's setup did not run");
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stderr, /the lanes\.toml of origin\/pr/);
  assert.match(r.stderr, /fix: read it \(git show origin\/pr:lanes\.toml\), then run `lanes allow --rev origin\/pr`/);
  assert.ok(!existsSync(join(w.out, 'pr-env')), "the contributor's setup did not run");
  assert.deepEqual(await sessions(w.opts), []);
  const shown = JSON.parse((await lanes(['allow', '--show', '--rev', 'origin/pr', '--json'], w.opts)).stdout);
  assert.match(shown.runs[0].value, /contributor/);
  assert.equal((await lanes(['allow', '--rev', 'origin/pr'], w.opts)).code, 0);
  const ok = await lanes(
    ['start', '--worktree', '--base', 'origin/pr', '--label', 'review', '--pid', String(process.pid)],
    w.opts,
  );
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(readFileSync(join(w.out, 'setups'), 'utf8'), 'contributor\n', 'exactly the allowed content, once');
});

test('a teardown an agent writes into its worktree is not run by lanes end, nor by the reap; Needs you says so', async () => {
  const w = cloned({
    'lanes.toml': `[session]\nsetup = 'true'\nteardown = 'echo torn >> "$OUT/teardowns"'\n`,
  });
  await lanes(['allow'], w.opts);
  const evil = `[session]\nsetup = 'true'\nteardown = 'env >> "$OUT/evil"'\n`;
  // Ended by a person.
  const a = await owner(w.env);
  const sa = JSON.parse(
    (await lanes(['start', '--worktree', '--label', 'a', '--json', '--pid', a.pid], w.opts)).stdout,
  ) as { id: string; worktree: string };
  writeFileSync(join(sa.worktree, 'lanes.toml'), evil);
  const ended = await lanes(['end', sa.id, '--force'], w.opts);
  assert.ok(!existsSync(join(w.out, 'evil')), 'lanes end ran no teardown an agent wrote');
  assert.equal(ended.code, 6, ended.stderr);
  assert.match(
    ended.stderr,
    new RegExp(`${sa.id} ended, but its \\[session\\] teardown was not run: .*is not allowed`),
  );
  assert.match(ended.stderr, /lanes allow .*lanes teardown/);
  assert.ok(!existsSync(join(w.out, 'evil')));
  assert.equal((await sessions(w.opts)).find((s) => s.id === sa.id)?.state, 'ended', 'the session ended all the same');
  // Dead an hour later: the background reap of an ordinary command ends it, and runs nothing.
  const b = await owner(w.env);
  const sb = JSON.parse(
    (await lanes(['start', '--worktree', '--label', 'b', '--json', '--pid', b.pid], w.opts)).stdout,
  ) as { id: string; worktree: string };
  writeFileSync(join(sb.worktree, 'lanes.toml'), evil);
  await b.kill();
  const reap = { ...w.opts, env: { ...w.env, LANES_GC_AFTER_MS: '1' } };
  for (let i = 0; i < 100 && (await sessions(w.opts)).find((s) => s.id === sb.id)?.state !== 'ended'; i++) {
    await lanes(['claims'], reap);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal((await sessions(w.opts)).find((s) => s.id === sb.id)?.state, 'ended', 'the reap ended it');
  assert.ok(!existsSync(join(w.out, 'evil')), 'the reap ran no unallowed teardown');
  const report = JSON.parse((await lanes(['report', '--json'], w.opts)).stdout) as {
    needsYou: { what: string; command: string }[];
  };
  const told = report.needsYou.filter((n) => /teardown .* did not run/.test(n.what));
  assert.equal(told.length, 2, JSON.stringify(report.needsYou));
  assert.match(
    told.find((n) => n.what.includes(sb.id) || n.command.includes(sb.id))!.command,
    /^lanes allow .*lanes\.toml && lanes teardown /,
  );
  // Allowed as it is now: it runs, exactly that content, once.
  assert.equal((await lanes(['allow', join(sb.worktree, 'lanes.toml')], w.opts)).code, 0);
  const again = await lanes(['teardown', sb.id], w.opts);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(readFileSync(join(w.out, 'evil'), 'utf8').match(/^OUT=/gm)?.length, 1);
  assert.match((await lanes(['teardown', sb.id], w.opts)).stdout, /no teardown due/);
});

test('[env] PATH = "bin" does not make lanes exec run the repository’s own git until allowed', async () => {
  const w = cloned({
    'lanes.toml': '[env]\nPATH = "bin"\n',
    'bin/git': '#!/bin/sh\necho "their git ran" > "$OUT/pwned"\n',
  });
  const id = (await lanes(['start', '--pid', String(process.pid)], w.opts)).stdout.trim();
  const as = { ...w.opts, env: { ...w.env, LANES_SESSION: id } };
  const r = await lanes(['exec', '--', 'git', 'status'], as);
  assert.ok(!existsSync(join(w.out, 'pwned')), "lanes exec ran not the repository's git");
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stderr, /\[env\] PATH = "bin"/);
  assert.ok(!existsSync(join(w.out, 'pwned')));
  const env = await lanes(['env'], as);
  assert.equal(env.code, 6, 'lanes env neither');
  await lanes(['allow'], w.opts);
  assert.equal((await lanes(['exec', '--', 'git', 'status'], as)).code, 0);
  assert.equal(readFileSync(join(w.out, 'pwned'), 'utf8'), 'their git ran\n', 'allowed: what the file says, as said');
});

test('an agent cannot allow: lanes allow in an agent’s session exits 6 and records nothing', async () => {
  const w = cloned({ 'lanes.toml': `[session]\nsetup = 'true'\n` });
  const agent = await owner(w.env);
  const id = (await lanes(['start', '--agent', 'codex', '--pid', agent.pid], w.opts)).stdout.trim();
  for (const env of [
    { ...w.env, LANES_SESSION: id },
    { ...w.env, LANES_RUN: '1' },
    { ...w.env, CODEX_SESSION_ID: '0199a213-81c0-7800-8aa1-bbab2a035a53' },
  ]) {
    const r = await lanes(['allow'], { env, cwd: w.repo });
    assert.equal(r.code, 6, r.stderr);
    assert.match(r.stderr, /lanes allow runs only in a person's shell/);
  }
  assert.equal(JSON.parse((await lanes(['allow', '--show', '--json'], w.opts)).stdout).state, 'unknown');
  assert.equal((await lanes(['allow', '--list', '--json'], w.opts)).stdout.trim(), '[]');
  // Its own config is the user's: no approval, it runs.
  const cfg = join(tmp('lanes-trust-user-'), 'config.toml');
  writeFileSync(cfg, `[session]\nsetup = 'echo mine >> "$OUT/user-setup"'\n`);
  const plain = cloned({ 'README.md': 'no lanes.toml\n' });
  const mine = { env: { ...plain.env, LANES_CONFIG: cfg }, cwd: plain.repo };
  assert.equal((await lanes(['start', '--worktree', '--label', 'u', '--pid', String(process.pid)], mine)).code, 0);
  assert.equal(readFileSync(join(plain.out, 'user-setup'), 'utf8'), 'mine\n');
});

test('lanes allow: bad paths and revisions are named; a file that runs nothing needs nothing', async () => {
  const w = cloned({ 'lanes.toml': '[ports]\nnames = ["web"]\n', 'sub/lanes.toml': '[env]\nX = "y"\n' });
  const none = await lanes(['allow'], w.opts);
  assert.equal(none.code, 0);
  assert.match(none.stdout, /runs nothing and sets nothing: it needs no approval/);
  const sub = await lanes(['allow', 'sub/lanes.toml'], w.opts);
  assert.equal(sub.code, 0, 'a lanes.toml anywhere can be allowed (lanes reads the root one only)');
  const missing = await lanes(['allow', 'nope/lanes.toml'], w.opts);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /does not exist/);
  const other = await lanes(['allow', 'README.md'], w.opts);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /is not a lanes\.toml/);
  const rev = await lanes(['allow', '--rev', 'no-such-branch'], w.opts);
  assert.equal(rev.code, 1);
  assert.match(rev.stderr, /no-such-branch has no lanes\.toml/);
  const dash = await lanes(['allow', '--rev=-x'], w.opts);
  assert.equal(dash.code, 2);
});

test('the hook door: Claude Code’s WorktreeCreate in a clone runs none of its lanes.toml, and is not refused', async () => {
  // Claude Code's own worktrees (a subagent's, claude --worktree) get no [session] setup: the gate
  // has nothing to refuse there, and a worktree the agent needs is still made.
  const w = cloned({ 'lanes.toml': `[session]\nsetup = 'env >> "$OUT/hook-setup"'\n` });
  const claude = await owner(w.env);
  const r = await hook(
    'claude-code',
    'worktree-create',
    { ...fixture('claude-code', 'worktree-create', w.repo, HOOK_ID), name: 'feature', cwd: w.repo },
    { env: { ...w.env, CLAUDE_PID: claude.pid }, cwd: w.repo },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!existsSync(join(w.out, 'hook-setup')));
  assert.equal(git(w.repo, 'worktree', 'list').trim().split('\n').length, 2);
});
