import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ROOT, gitRepo, lanes, lanesEnv, run, tmp } from '../helpers/env.js';
import { needs } from '../helpers/needs.js';
import { tmuxMissing } from '../helpers/tmux.js';

// Issue 47, item 2: the README's "A night with lanes" is run exactly as written, so the front door
// cannot rot. The evening block in a real terminal (a tmux pane: lanes setup asks, a person
// answers y), with a stand-in for Claude Code (test/fixtures/night-claude.sh) on PATH and an empty
// HOME but for ~/.claude; then, once both agents have finished, the morning block in a plain shell.

/** The README's shell blocks of one section, in order. */
function blocksOf(section: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`\n## ${section}\n`);
  assert.ok(at >= 0, `the README has a section "${section}"`);
  const text = readme.slice(at + 1).split(/\n## /)[0]!;
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test(
  "the README's night, as written: setup, up, the agents' work, report, land, gc",
  { skip: needs('tmux', tmuxMissing), timeout: 180_000 },
  async () => {
    const [evening, morning, ...rest] = blocksOf('A night with lanes');
    assert.ok(evening && morning && rest.length === 0, 'two blocks: the evening and the morning');
    assert.ok(
      evening.split('\n').filter(Boolean).length + morning.split('\n').filter(Boolean).length <= 10,
      'at most ten commands',
    );

    const repo = join(tmp('lanes-night-'), 'shop');
    mkdirSync(repo);
    gitRepo(repo);
    mkdirSync(join(repo, 'tasks'));
    for (const t of ['SHOP-12', 'SHOP-13']) writeFileSync(join(repo, 'tasks', `${t}.md`), `Fix ${t}.\n`);
    execFileSync('git', ['add', 'tasks'], { cwd: repo });
    execFileSync('git', ['commit', '-qm', 'the tasks of the night'], { cwd: repo });

    // The user's machine: lanes and claude on PATH, Claude Code's config directory in HOME.
    const home = tmp('lanes-night-home-');
    mkdirSync(join(home, '.claude'));
    const bin = join(home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'lanes'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
    chmodSync(join(bin, 'lanes'), 0o755);
    symlinkSync(join(ROOT, 'test', 'fixtures', 'night-claude.sh'), join(bin, 'claude'));
    const env: Record<string, string> = {
      ...lanesEnv(),
      HOME: home,
      PATH: `${bin}:${process.env['PATH']}`,
      TMUX_TMPDIR: tmp('lanes-night-tmux-'),
      GIT_AUTHOR_NAME: 'night',
      GIT_AUTHOR_EMAIL: 'night@lanes.invalid',
      GIT_COMMITTER_NAME: 'night',
      GIT_COMMITTER_EMAIL: 'night@lanes.invalid',
    };
    delete env['TMUX'];
    delete env['CI'];
    const tmux = (...args: string[]) => execFileSync('tmux', args, { env, encoding: 'utf8' });
    const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 'evening:');

    // The evening, typed into a terminal; the person answers lanes setup's question.
    const script = join(home, 'evening.sh');
    writeFileSync(script, `set -e\n${evening}`);
    const done = join(home, 'evening.exit');
    tmux(
      'new-session',
      '-d',
      '-x',
      '120',
      '-y',
      '50',
      '-s',
      'evening',
      '-c',
      repo,
      '--',
      'sh',
      '-c',
      `bash '${script}'; echo $? > '${done}'; exec sleep 600`,
    );
    const until = async (what: () => boolean, why: string, ms = 60_000) => {
      for (const end = Date.now() + ms; !what(); await new Promise((r) => setTimeout(r, 100)))
        if (Date.now() > end) throw new Error(`${why} within ${ms} ms:\n${screen()}`);
    };
    await until(() => /\[y\/N\]/.test(screen()), 'lanes setup asks');
    tmux('send-keys', '-t', 'evening:', 'y', 'Enter');
    await until(() => existsSync(done), 'the evening ends');
    assert.equal(readFileSync(done, 'utf8').trim(), '0', `the evening block ran: ${screen()}`);

    // The night: both agents do their task and exit; their wrappers end their sessions.
    const opts = { env, cwd: repo };
    type Row = { ticket: string; state: string; worktree: string };
    const sessions = async () => JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as Row[];
    for (const end = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 200))) {
      const s = await sessions();
      if (s.length === 2 && s.every((x) => x.state === 'ended')) break;
      if (Date.now() > end) throw new Error(`the agents did not finish: ${JSON.stringify(s)}`);
    }
    const worktrees = (await sessions()).map((s) => s.worktree);

    // The morning, as written, in a plain shell.
    const r = await run('bash', ['-e', '-c', morning], opts);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /SHOP-12[\s\S]*SHOP-13|SHOP-13[\s\S]*SHOP-12/, 'the report names both tickets');
    const onMain = execFileSync('git', ['ls-tree', '-r', '--name-only', 'main', 'done'], {
      cwd: repo,
      encoding: 'utf8',
    });
    assert.deepEqual(onMain.trim().split('\n').sort(), ['done/shop-12.md', 'done/shop-13.md'], 'both landed on main');
    for (const w of worktrees) assert.equal(existsSync(w), false, `${w} removed by gc --worktrees`);
    tmux('kill-server');
  },
);
