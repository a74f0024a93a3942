import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { fixture, hook } from '../helpers/hooks.js';
import { needs } from '../helpers/needs.js';
import { tmuxMissing } from '../helpers/tmux.js';

// Issue 45, item 8: `lanes top`, a live view of the fleet in a terminal, driven through a real tmux
// (send-keys, capture-pane) at 80 columns: the five groups with ticket, label, agent and what each
// is about; a change made by another process reaches the screen without a key; r shows the report,
// d a session's work (lanes diff --stat), s stops a session after asking, q quits.

test(
  'lanes top at 80 columns: groups, live updates, report, work, stop, quit',
  { skip: needs('tmux', tmuxMissing) },
  async () => {
    const repo = gitRepo();
    const env: Record<string, string> = { ...lanesEnv(), TMUX_TMPDIR: tmp('lanes-tmux-'), LANES_TOP_EVERY_MS: '200' };
    delete env['TMUX'];
    delete env['CI'];
    const opts = { env, cwd: repo };
    const tmux = (...args: string[]) => execFileSync('tmux', args, { env, encoding: 'utf8' });
    const screen = () => tmux('capture-pane', '-p', '-t', 'top:');
    const until = async (what: RegExp, ms = 15_000) => {
      for (const end = Date.now() + ms; ;) {
        const s = screen();
        if (what.test(s)) return s;
        if (Date.now() > end) throw new Error(`not on screen within ${ms} ms: ${what}\n${s}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const working = JSON.parse(
      (await lanes(['new', 'SHOP-1', '--label', 'cart', '--background', '--json', '--', 'sleep', '600'], opts)).stdout,
    ) as { session: string; worktree: string };
    // Its work, shown by d (lanes diff --stat): an untracked file.
    writeFileSync(join(working.worktree, 'note.txt'), 'note\n');
    // An agent waiting for its person (its Notification hook: a permission prompt).
    const waiting = 'aaaaaaaa-0000-4000-8000-00000000000a';
    // Its transcript says what it spent (1,500 in at $3 and 500 out at $15 a million: $0.012).
    const transcript = join(tmp('lanes-claude-'), 'transcript.jsonl');
    const spent = (id: string, input: number, output: number) =>
      appendFileSync(
        transcript,
        `${JSON.stringify({ type: 'assistant', message: { id, model: 'claude-sonnet-4-5', usage: { input_tokens: input, output_tokens: output } } })}\n`,
      );
    spent('msg_1', 1500, 500);
    const started = fixture('claude-code', 'session-start', repo, waiting, (p) => (p['transcript_path'] = transcript));
    await hook('claude-code', 'session-start', started, opts);
    await hook(
      'claude-code',
      'notification',
      fixture('claude-code', 'notification', repo, waiting, (p) => {
        p['notification_type'] = 'permission_prompt';
        p['message'] = 'Claude needs your permission to use Bash';
      }),
      opts,
    );
    tmux('new-session', '-d', '-x', '80', '-y', '30', '-s', 'top', '-c', repo, '--', process.execPath, CLI, 'top');
    let s = await until(/Working \(1\)/);
    assert.match(s, /Waiting for input \(1\)/);
    assert.match(s, /aaaaaaaa +claude-code +\S+ +\S+ +\$0\.01 +Claude needs your perm/);
    assert.match(s, /SHOP-1 +cart +- +\S+ +\S+ +-/);
    // It spends more, and nothing in the store changes: its column follows within seconds.
    spent('msg_2', 100_000, 0);
    await until(/aaaaaaaa +claude-code +\S+ +\S+ +\$0\.31 +Claude/);
    for (const l of s.split('\n')) assert.ok(l.length <= 80, `wider than 80: ${l}`);
    // Another process ends a session: on screen without a key.
    await lanes(['start', '--', 'false'], opts);
    s = await until(/Finished \(1\)/);
    // The report, then back.
    tmux('send-keys', '-t', 'top:', 'r');
    await until(/lanes report: /);
    tmux('send-keys', '-t', 'top:', 'q');
    await until(/Working \(1\)/);
    // The selected session's work (cart: move down to it).
    // Down until cart is selected (group headings are not rows).
    for (let i = 0; i < 5 && !/› SHOP-1 +cart/.test(screen()); i++) {
      tmux('send-keys', '-t', 'top:', i < 2 ? 'Down' : 'Up');
      await new Promise((r) => setTimeout(r, 150));
    }
    await until(/› SHOP-1 +cart/);
    tmux('send-keys', '-t', 'top:', 'd');
    await until(/branch lanes\/shop-1: 1 uncommitted file/);
    await until(/A note\.txt \* +\| 1 \+/);
    assert.match(screen(), /1 file changed, 1 insertion\(\+\), 0 deletions\(-\); \* 1 uncommitted/);
    await until(/^\+note$/m); // the patch under the stat
    tmux('send-keys', '-t', 'top:', 'q');
    await until(/Working \(1\)/);
    // Stop it: asked first, then ended.
    tmux('send-keys', '-t', 'top:', 's');
    await until(/stop cart\? its agent is asked to exit/);
    tmux('send-keys', '-t', 'top:', 'y');
    await until(/cart stopped/);
    const all = JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as { id: string; state: string }[];
    assert.equal(all.find((x) => x.id === working.session)?.state, 'ended');
    tmux('send-keys', '-t', 'top:', 'q');
    // q quits: the pane's program (lanes top) exits, and its tmux session with it.
    for (let i = 0; i < 100 && spawnSync('tmux', ['has-session', '-t', '=top'], { env }).status === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.notEqual(spawnSync('tmux', ['has-session', '-t', '=top'], { env }).status, 0, 'lanes top quit');
  },
);
