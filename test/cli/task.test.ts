import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { FIXTURES, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// Issue 44, item 3: an agent started by lanes new/up gets a first task, handed over as its CLI takes
// one in interactive mode (core/agent-run.ts), never as text on its command line; recorded on the
// session (ls --json), in the journal; refused before anything is made when the agent takes none.
// The "agents" are a stand-in (test/fixtures/task-agent.mjs) that records how it was started.

const STAND_IN = join(FIXTURES, 'task-agent.mjs');
const TASK = 'Fix {ticket}: the cart rounds 0.005 down. Secret-ish detail: pw=hunter2';

interface Started {
  argv: string[];
  stdin: string | null;
  pid: number;
  trusted: Record<string, string> | null;
  runtime: string;
}

function world() {
  const env: Record<string, string> = { ...lanesEnv(), OUT: tmp('lanes-task-out-') };
  const repo = gitRepo();
  return { env, repo, opts: { env, cwd: repo } };
}

async function started(out: string, name: string): Promise<Started> {
  for (let i = 0; i < 400; i++) {
    const f = readdirSync(out).find((n) => n.startsWith(`${name}-`));
    if (f) return JSON.parse(readFileSync(join(out, f), 'utf8')) as Started;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the stand-in ${name} never started`);
}

async function run(w: ReturnType<typeof world>, ticket: string, agent: string, cmd: string[], extra: string[] = []) {
  const env = { ...w.env, TASK_NAME: agent };
  const r = await lanes(['new', ticket, '--agent', agent, '--background', '--json', ...extra, '--', ...cmd], {
    env,
    cwd: w.repo,
  });
  assert.equal(r.code, 0, r.stderr);
  return { id: (JSON.parse(r.stdout) as { session: string }).session, got: await started(w.env['OUT']!, agent) };
}

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8');

test('each agent gets its first task as its CLI takes one; the text is never on its command line', async () => {
  const w = world();
  const want = TASK.replace('{ticket}', 'SHOP-1');
  const node = [process.execPath, STAND_IN];
  // Claude Code: the task file is its stdin.
  const claude = await run(w, 'SHOP-1', 'claude-code', node, ['--prompt', TASK]);
  assert.equal(claude.got.stdin, want);
  const file = join(claude.got.runtime, 'task.md');
  assert.equal(readFileSync(file, 'utf8'), want);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  // Gemini CLI: -i @FILE with the runtime directory included and trusted (the user's own trust kept).
  const home = tmp('lanes-task-home-');
  mkdirSync(join(home, '.gemini'));
  writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ '/work/mine': 'TRUST_FOLDER' }));
  const gem = await run({ ...w, env: { ...w.env, HOME: home } }, 'SHOP-2', 'gemini', node, ['--prompt', TASK]);
  const gemFile = join(gem.got.runtime, 'task.md');
  assert.deepEqual(gem.got.argv.slice(-4), ['--include-directories', gem.got.runtime, '-i', `@${gemFile}`]);
  assert.deepEqual(gem.got.trusted, { '/work/mine': 'TRUST_FOLDER', [gem.got.runtime]: 'TRUST_FOLDER' });
  // Copilot CLI: -i @FILE with --add-dir.
  const cop = await run(w, 'SHOP-3', 'copilot', node, ['--prompt', TASK]);
  assert.deepEqual(cop.got.argv.slice(-4), [
    '--add-dir',
    cop.got.runtime,
    '-i',
    `@${join(cop.got.runtime, 'task.md')}`,
  ]);
  // Codex and OpenCode: a first prompt that names the file; the file holds the task.
  const cod = await run(w, 'SHOP-4', 'codex', node, ['--prompt', TASK]);
  assert.match(cod.got.argv.at(-1) ?? '', new RegExp(`^Your task is in the file ${join(cod.got.runtime, 'task.md')}`));
  const oc = await run(w, 'SHOP-5', 'opencode', node, ['--prompt', TASK]);
  assert.equal(oc.got.argv.at(-2), '--prompt');
  assert.match(oc.got.argv.at(-1) ?? '', /^Your task is in the file .*task\.md/);
  for (const s of [claude, gem, cop, cod, oc]) assert.doesNotMatch(cmdline(s.got.pid), /hunter2|rounds 0\.005/);
  // Recorded: on the session (ls --json) and in the journal's start entry.
  const ls = JSON.parse((await lanes(['ls', '--json'], w.opts)).stdout) as { id: string; task: string | null }[];
  assert.equal(ls.find((s) => s.id === claude.id)?.task, want);
  const log = (await lanes(['log', '--json', '--kind', 'session.start'], w.opts)).stdout;
  assert.match(log, /"task":"Fix SHOP-1: the cart rounds/);
  for (const s of [claude, gem, cop, cod, oc]) await lanes(['stop', s.id], w.opts);
});

test('Codex in a lanes worktree may write its git directory (--add-dir), after its subcommand', async () => {
  const w = world();
  const bin = tmp('lanes-codex-bin-');
  // A program named codex: the stand-in under Codex's name.
  writeFileSync(join(bin, 'codex'), `#!/bin/sh\nexec "${process.execPath}" "${STAND_IN}" "$@"\n`);
  chmodSync(join(bin, 'codex'), 0o755);
  const { id, got } = await run(w, 'SHOP-6', 'codex', [join(bin, 'codex'), 'exec', '--json', 'go']);
  const ls = JSON.parse((await lanes(['ls', '--json'], w.opts)).stdout) as { id: string; worktree: string }[];
  const gitDir = readFileSync(join(ls.find((s) => s.id === id)!.worktree, '.git'), 'utf8')
    .replace('gitdir: ', '')
    .trim();
  assert.deepEqual(got.argv, ['exec', '--add-dir', gitDir, '--json', 'go']);
  await lanes(['stop', id], w.opts);
});

test('a task no agent can take, an empty one or a missing file is refused before anything is made', async () => {
  const w = world();
  const none = await lanes(['new', 'SHOP-7', '--background', '--prompt', 'x', '--', 'sleep', '600'], w.opts);
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /--prompt needs to know the agent: "sleep" is not one lanes knows/);
  const empty = await lanes(['new', 'SHOP-7', '--agent', 'codex', '--background', '--prompt', '  '], w.opts);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /the task is empty/);
  const huge = join(tmp(), 'huge.md');
  writeFileSync(huge, 'x'.repeat(300 * 1024));
  const big = await lanes(['new', 'SHOP-7', '--agent', 'codex', '--background', '--prompt-file', huge], w.opts);
  assert.equal(big.code, 2);
  assert.match(big.stderr, /over 262144/);
  const both = await lanes(['new', 'SHOP-7', '--agent', 'codex', '--prompt', 'a', '--prompt-file', huge], w.opts);
  assert.equal(both.code, 2);
  assert.equal(JSON.parse((await lanes(['ls', '--all', '--json'], w.opts)).stdout).length, 0, 'no session');
  assert.equal(existsSync(`${w.repo}.lanes`), false, 'no worktree');
  assert.doesNotMatch(execFileSync('git', ['branch'], { cwd: w.repo, encoding: 'utf8' }), /lanes\//, 'no branch');
});

test('lanes up: one task file per ticket ({ticket} in its name); a ticket without one is not started, the others are', async () => {
  const w = world();
  const tasks = tmp('lanes-tasks-');
  writeFileSync(join(tasks, 'SHOP-8.md'), 'the task of {ticket}\n');
  writeFileSync(join(tasks, 'SHOP-9.md'), 'another task\n');
  const env = { ...w.env, TASK_NAME: 'up' };
  const r = await lanes(
    [
      'up',
      'SHOP-8',
      'SHOP-9',
      'SHOP-10',
      '--agent',
      'claude-code',
      '--background',
      '--prompt-file',
      join(tasks, '{ticket}.md'),
      '--',
      process.execPath,
      STAND_IN,
    ],
    { env, cwd: w.repo },
  );
  assert.equal(r.code, 1, 'one ticket was not started');
  assert.match(r.stderr, /SHOP-10 not started: --prompt-file .*SHOP-10\.md: ENOENT/);
  const ls = JSON.parse((await lanes(['ls', '--json'], w.opts)).stdout) as {
    id: string;
    ticket: string;
    task: string;
  }[];
  assert.deepEqual(ls.map((s) => [s.ticket, s.task]).sort(), [
    ['SHOP-8', 'the task of SHOP-8\n'],
    ['SHOP-9', 'another task\n'],
  ]);
  for (const s of ls) await lanes(['stop', s.id], w.opts);
});
