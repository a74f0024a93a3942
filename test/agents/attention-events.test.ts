import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lanes } from '../helpers/env.js';
import { fixture, hook, world } from '../helpers/hooks.js';

// Issue 26, item 3: each agent's own event for "waiting for you" (where it has one: the hooks
// reference of each, see src/agents/*/adapter.ts), for a turn stopped on an error, and for a new
// prompt, through `lanes hook` as installed, shown on the session by `lanes ls --json`.

interface Case {
  agent: string;
  start: Record<string, unknown>;
  wait: [string, Record<string, unknown>] | null;
  resume: [string, Record<string, unknown>];
  why?: RegExp;
}

async function attention(opts: { env: Record<string, string>; cwd: string }) {
  const list = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as {
    attention: { state: string; why: string } | null;
  }[];
  assert.equal(list.length, 1);
  return list[0]!.attention;
}

test("each agent's wait, stop on error and new prompt", async (t) => {
  const cases = (repo: string): Case[] => [
    {
      agent: 'gemini',
      start: fixture('gemini', 'session-start', repo, 'g1'),
      wait: [
        'notification',
        {
          session_id: 'g1',
          cwd: repo,
          hook_event_name: 'Notification',
          notification_type: 'ToolPermission',
          message: 'Allow run_shell_command?',
          details: {},
        },
      ],
      resume: ['before-agent', { session_id: 'g1', cwd: repo, hook_event_name: 'BeforeAgent', prompt: 'go on' }],
      why: /Allow run_shell_command/,
    },
    {
      agent: 'copilot',
      start: fixture('copilot', 'session-start', repo, 'c1'),
      wait: [
        'notification',
        {
          sessionId: 'c1',
          cwd: repo,
          hook_event_name: 'notification',
          notification_type: 'permission_prompt',
          message: 'Copilot wants to run bash',
          timestamp: 1,
        },
      ],
      resume: ['user-prompt-submitted', { sessionId: 'c1', cwd: repo, prompt: 'go on', timestamp: 2 }],
      why: /wants to run bash/,
    },
    {
      agent: 'copilot',
      start: fixture('copilot', 'session-start', repo, 'c2'),
      wait: [
        'error-occurred',
        {
          sessionId: 'c2',
          cwd: repo,
          error: { message: 'model call failed', name: 'Error' },
          errorContext: 'model_call',
          recoverable: false,
        },
      ],
      resume: ['user-prompt-submitted', { sessionId: 'c2', cwd: repo, prompt: 'again' }],
      why: /stopped on an error: model call failed/,
    },
    {
      agent: 'opencode',
      start: fixture('opencode', 'session-created', repo, 'o1'),
      wait: ['permission.asked', { sessionID: 'o1', directory: repo, permission: 'bash', pid: process.pid }],
      resume: ['chat.message', { sessionID: 'o1', directory: repo, pid: process.pid }],
      why: /permission asked for bash/,
    },
    {
      agent: 'cursor',
      start: fixture('cursor', 'session-start', repo, 'u1'),
      wait: [
        'stop',
        {
          conversation_id: 'u1',
          workspace_roots: [repo],
          cwd: repo,
          hook_event_name: 'stop',
          status: 'error',
          loop_count: 0,
        },
      ],
      resume: ['pre-tool-use', fixture('cursor', 'pre-tool-use', repo, 'u1')],
      why: /stopped on an error/,
    },
    {
      agent: 'codex',
      start: fixture('codex', 'session-start', repo, 'x1'),
      // Codex has no event for a wait: its turn's end shows finished, its next prompt clears it.
      wait: null,
      resume: [
        'user-prompt-submit',
        {
          session_id: 'x1',
          turn_id: 't2',
          cwd: repo,
          hook_event_name: 'UserPromptSubmit',
          model: 'gpt',
          prompt: 'go on',
        },
      ],
    },
  ];
  for (const c of cases(world().repo)) {
    await t.test(`${c.agent}${c.wait ? ` ${c.wait[0]}` : ''}`, async () => {
      const { repo, opts } = world();
      const mine = cases(repo).find((x) => x.agent === c.agent && x.wait?.[0] === c.wait?.[0])!;
      await hook(mine.agent, mine.agent === 'opencode' ? 'session.created' : 'session-start', mine.start, opts);
      if (mine.wait) {
        await hook(mine.agent, mine.wait[0], mine.wait[1], opts);
        const a = await attention(opts);
        assert.equal(a?.state, 'waiting');
        assert.match(a!.why, mine.why!);
      } else {
        await hook(
          'codex',
          'stop',
          {
            session_id: 'x1',
            turn_id: 't1',
            cwd: repo,
            hook_event_name: 'Stop',
            model: 'gpt',
            last_assistant_message: 'all done',
          },
          opts,
        );
        assert.equal((await attention(opts))?.state, 'finished');
      }
      const resumed = await hook(mine.agent, mine.resume[0], mine.resume[1], opts);
      assert.equal(resumed.code, 0);
      assert.equal(await attention(opts), null, `${mine.resume[0]} clears it`);
    });
  }
});

test("Claude Code's other notifications (auth_success, agent_completed) are not a wait", async () => {
  const { repo, opts } = world();
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, 'a1'), opts);
  for (const type of ['auth_success', 'agent_completed'])
    await hook(
      'claude-code',
      'notification',
      { ...fixture('claude-code', 'notification', repo, 'a1'), notification_type: type },
      opts,
    );
  assert.equal(await attention(opts), null);
});
