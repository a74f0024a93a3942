// lanes tell into an idle agent's tmux pane (issue 49, item 2): an agent lanes started in tmux
// whose turn finished sits at its prompt, and the message is typed there at once (a private tmux
// server; the pane runs a stand-in that writes each line it reads). A pane whose agent works again
// (its next prompt cleared the finished state) or waits on a question is never typed into: the
// message waits for the hooks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lanes, owner, tmp } from '../helpers/env.js';
import { fixture, hook, world } from '../helpers/hooks.js';
import { needs } from '../helpers/needs.js';
import { tmuxMissing } from '../helpers/tmux.js';
import { openLanes } from '../../src/index.js';

const skip = needs('tmux', tmuxMissing);

test(
  'a message is typed into the pane of an agent whose turn finished, never into one that works or asks',
  { skip },
  async () => {
    const { repo, env } = world();
    env['TMUX_TMPDIR'] = tmp('lanes-tmux-');
    delete env['TMUX'];
    // The agent is a process of its own (its hooks say so, as Claude Code does with CLAUDE_PID): the
    // person's lanes tell is not inside the agent's process tree.
    const agent = await owner(env);
    const opts = { env, cwd: repo };
    const asAgent = { env: { ...env, CLAUDE_PID: agent.pid }, cwd: repo };
    const got = join(tmp('lanes-pane-'), 'typed.txt');
    const name = 'lanes-tell-pane';
    const tmux = (...args: string[]) => execFileSync('tmux', args, { env, encoding: 'utf8' });
    // The stand-in agent: each line typed at its prompt, written down.
    tmux('new-session', '-d', '-s', name, `while IFS= read -r l; do printf '%s\\n' "$l" >> '${got}'; done`);
    try {
      const id = 'claude-code:tmux-1';
      await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, 'tmux-1'), asAgent);
      const lib = await openLanes({ env, cwd: repo, session: null, notice: false });
      await lib.sessions.setTerminal(id, `tmux ${name}`);
      await lib.close();
      const lines = async (n: number) => {
        for (let i = 0; i < 200 && (!existsSync(got) || readFileSync(got, 'utf8').split('\n').length <= n); i++)
          await new Promise((r) => setTimeout(r, 25));
        return existsSync(got) ? readFileSync(got, 'utf8').split('\n').filter(Boolean) : [];
      };

      // Working (no attention): not typed, pending.
      const working = await lanes(['tell', id, 'while you work'], opts);
      assert.match(working.stdout, /pending until its agent's next tool call/);
      // Its turn finished: typed at once, as one line, and recorded as delivered.
      await hook('claude-code', 'stop', fixture('claude-code', 'stop', repo, 'tmux-1'), asAgent);
      const idle = await lanes(['tell', id, 'the tests of cart fail:\nrebase on main'], opts);
      assert.equal(idle.code, 0, idle.stderr);
      assert.match(idle.stdout, /typed into its idle agent's pane \(typed into tmux lanes-tell-pane/);
      assert.match((await lines(1))[0]!, /^\(lanes tell from .+\) the tests of cart fail: rebase on main$/);
      const list = JSON.parse((await lanes(['tell', id, '--list', '--json'], opts)).stdout) as {
        message: string;
        delivered: { via: string } | null;
      }[];
      assert.deepEqual(
        list.map((t) => t.delivered?.via ?? 'pending'),
        ['pending', 'typed into tmux lanes-tell-pane (its turn had finished)'],
      );
      // From a session (an agent's shell): never typed, whatever the pane; it waits for the hooks.
      const fromAgent = await lanes(['tell', id, 'from another agent'], {
        env: { ...env, LANES_SESSION: id },
        cwd: repo,
      });
      assert.match(fromAgent.stdout, /pending until its agent's next tool call/);
      // A control character (a carriage return would submit a line of its own): refused.
      const control = await lanes(['tell', id, 'first\r!echo injected'], opts);
      assert.equal(control.code, 2, control.stderr);
      assert.match(control.stderr, /a control character \(U\+000D\)/);
      // It works again (the person's prompt): never typed into.
      const prompt = {
        ...fixture('claude-code', 'stop', repo, 'tmux-1'),
        hook_event_name: 'UserPromptSubmit',
        prompt: 'go',
      };
      await hook('claude-code', 'user-prompt-submit', prompt, asAgent);
      const again = await lanes(['tell', id, 'not now'], opts);
      assert.match(again.stdout, /pending/);
      // A question (waiting): never typed into either, the answer is the person's.
      await hook('claude-code', 'notification', fixture('claude-code', 'notification', repo, 'tmux-1'), asAgent);
      const asking = await lanes(['tell', id, 'nor now'], opts);
      assert.match(asking.stdout, /pending/);
      // A line typed after them all (tmux keeps the order of keys): nothing came between.
      tmux('send-keys', '-t', `=${name}:`, '-l', '--', 'SENTINEL');
      tmux('send-keys', '-t', `=${name}:`, 'Enter');
      const all = await lines(2);
      assert.equal(all.length, 2, `only the idle message was typed: ${all.join(' | ')}`);
      assert.equal(all[1], 'SENTINEL');
    } finally {
      execFileSync('tmux', ['kill-server'], { env, stdio: 'ignore' });
    }
  },
);
