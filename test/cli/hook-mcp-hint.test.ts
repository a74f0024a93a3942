import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lanes, tmp } from '../helpers/env.js';
import { answer, fixture, hook, world } from '../helpers/hooks.js';

// Where lanes' MCP server is registered for the agent, the deny and the briefing name its tools
// (they act as the agent's session in every agent, sandboxed shell or not); where it is not, they
// keep to the shell commands. A deny names the exact tool call that lifts it, and only a deny a
// claim lifts (issue 44, item 6).
const A = 'aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa';
const B = 'bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb';

test("a deny and the briefing name lanes' MCP tools only where the MCP server is registered", async () => {
  const { repo, env: base } = world();
  const env = { ...base, HOME: tmp() };
  const opts = { env, cwd: repo };
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, A), opts);
  assert.equal((await lanes(['claim', 'path:src/billing/', '--session', `claude-code:${A}`], opts)).code, 0);
  const deny = async () => {
    const out = answer(
      await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-edit', repo, B), opts),
    )['hookSpecificOutput'] as Record<string, string>;
    assert.equal(out['permissionDecision'], 'deny');
    return out['permissionDecisionReason'] ?? '';
  };
  const brief = async () =>
    (
      answer(await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, B), opts))[
        'hookSpecificOutput'
      ] as Record<string, string>
    )['additionalContext'] ?? '';
  assert.doesNotMatch(await deny(), /MCP/);
  assert.doesNotMatch(await brief(), /MCP/);
  // `lanes hooks install claude-code` registers `lanes mcp` in .mcp.json beside the hooks.
  assert.equal((await lanes(['hooks', 'install', 'claude-code'], opts)).code, 0);
  // The exact call that lifts this deny: the claimed path, spelled out.
  assert.match(
    await deny(),
    /lanes claim path:src\/billing\/ --wait.*call its tool `claim` with \{"resources":\["path:src\/billing\/"\],"waitSeconds":60\}\.$/s,
  );
  assert.match(await brief(), /lanes' MCP server \(lanes\) is connected: its tools \(claim, release/);
  // A deny no claim lifts (git in a worktree another session shares) never carries it.
  const git = answer(
    await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-bash', repo, B), opts),
  )['hookSpecificOutput'] as Record<string, string>;
  assert.equal(git['permissionDecision'], 'deny');
  assert.match(git['permissionDecisionReason'] ?? '', /would change the shared state of worktree/);
  assert.doesNotMatch(git['permissionDecisionReason'] ?? '', /MCP|waitSeconds/);
});
