import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly } from '../helpers/needs.js';
import { CLI, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { anthropic } from './fake-model/anthropic.js';
import { FakeModel } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, runAgent } from './world.js';

// Claude Code's own worktrees, made by lanes: the released CLI runs `claude -p --worktree NAME`
// against a scripted local model, with the WorktreeCreate/WorktreeRemove hooks `lanes hooks
// install claude-code` wrote. The model writes a file in the worktree and asks to remove it
// (refused: uncommitted work, saved in a snapshot), enters a second one (made by lanes for the
// live session, with a session of its own) and removes that one (clean: it goes, with its branch).
const { version } = pin('claude-code');

test(
  `Claude Code ${version} (real CLI): claude --worktree and EnterWorktree get lanes worktrees; WorktreeRemove keeps uncommitted work`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'claude-code');
    if (!cli) return;
    const repo = realpathSync(gitRepo());
    const env = lanesEnv();
    const home = tmp('lanes-agent-home-');
    const lanesCommand = `${process.execPath} ${CLI}`;
    const installed = await lanes(['hooks', 'install', 'claude-code', '--command', lanesCommand], { env, cwd: repo });
    assert.equal(installed.code, 0, installed.stderr);
    const first = `${repo}.lanes/feature-x`;
    const second = `${repo}.lanes/second`;
    const model = new FakeModel(
      anthropic,
      [
        { tools: [{ name: 'Write', input: { file_path: join(first, 'notes.md'), content: 'a thought\n' } }] },
        { tools: [{ name: 'ExitWorktree', input: { action: 'remove', discard_changes: true } }] },
        { tools: [{ name: 'EnterWorktree', input: { name: 'second' } }] },
        { tools: [{ name: 'ExitWorktree', input: { action: 'remove', discard_changes: true } }] },
        { text: 'All done.' },
      ],
      'claude-code-worktree',
    );
    const url = await model.start();
    t.after(() => model.stop());
    const run = await runAgent(
      cli.bin,
      [
        '-p',
        'Note a thought in a worktree, then clean up.',
        '--worktree',
        'feature/x',
        '--permission-mode',
        'acceptEdits',
        '--allowedTools',
        'ExitWorktree',
        'EnterWorktree',
        '--output-format',
        'json',
      ],
      {
        cwd: repo,
        timeoutMs: 3 * 60_000,
        env: agentEnv({ repo, env, home, lanesCommand }, url, {
          ANTHROPIC_BASE_URL: url,
          ANTHROPIC_API_KEY: 'sk-ant-lanes-test-not-a-key',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_ERROR_REPORTING: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        }),
      },
    );
    const context = `exit ${run.code}; served ${model.served}; stdout ${run.stdout.slice(-2000)}; stderr ${run.stderr.slice(-2000)}`;
    assert.ok(!run.timedOut, context);
    assert.ok(model.served >= 5, `the model was asked ${model.served} times: ${context}`);
    const loop = model.mainLoop();
    const said = (i: number) => JSON.stringify(loop[i] ?? null);

    // WorktreeCreate: lanes made the worktree (its place, its branch, lanes' hooks carried in), and
    // the agent's session started in it: lanes' briefing names it.
    assert.ok(existsSync(join(first, '.git')), `lanes' worktree ${first} exists: ${context}`);
    const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();
    assert.equal(git(first, 'branch', '--show-current'), 'lanes/feature-x');
    assert.match(readFileSync(join(first, '.claude', 'settings.json'), 'utf8'), /hook claude-code worktree-remove/);
    const me = /lanes: you are session (claude-code:[^\s"\\]+) in worktree ([^\s"\\]+)/.exec(said(0));
    assert.ok(me, `the briefing names the session and its worktree: ${said(0).slice(0, 1500)}`);
    assert.equal(me[2]!.replace(/[.,;:]$/, ''), first);

    // The first removal was refused: the written file is uncommitted work, saved, and the worktree stays.
    assert.equal(readFileSync(join(first, 'notes.md'), 'utf8'), 'a thought\n');
    const log = (await lanes(['log', '--kind', 'worktree', '--json'], { env, cwd: repo })).stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; subject: string; details: Record<string, unknown> });
    const refused = log.find((e) => e.kind === 'worktree.refuse' && e.subject === first);
    assert.ok(refused, `the refusal is journaled: ${JSON.stringify(log)}`);
    assert.equal(refused.details['rule'], 'uncommitted', String(refused.details['why']));
    assert.equal(git(repo, 'show', `${String(refused.details['snapshot'])}:notes.md`), 'a thought');

    // EnterWorktree from the live session: a lanes worktree with a session of its own, then removed
    // clean, with its (merged) branch and its session.
    const removed = log.find((e) => e.kind === 'worktree.remove' && e.subject === second);
    assert.ok(removed, `the second worktree's removal is journaled: ${JSON.stringify(log)}`);
    assert.ok(!existsSync(second), 'the clean worktree is gone');
    assert.equal(git(repo, 'branch', '--list', 'lanes/second'), '', 'its merged branch too');
    assert.equal(git(repo, 'branch', '--list', 'lanes/feature-x').replace(/^[*+ ]+/, ''), 'lanes/feature-x');
    const all = JSON.parse((await lanes(['ls', '--all', '--json'], { env, cwd: repo })).stdout) as {
      id: string;
      worktree: string;
      state: string;
      endReason: string | null;
    }[];
    const child = all.find((s) => s.id === `${me[1]}.second`);
    assert.ok(child, `the second worktree had its own session: ${JSON.stringify(all)}`);
    assert.equal(child.state, 'ended');
    assert.match(child.endReason ?? '', /removed its worktree/);
    t.diagnostic(`real agent claude-code@${version}: worktrees by lanes (${cli.bin})`);
  },
);
