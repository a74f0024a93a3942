import type { InstallSpec } from '../install-spec.js';
import { WAITING_NOTIFICATIONS } from '../claude-shaped.js';

// Timeouts in seconds. SessionEnd hooks share ~1.5 s in Claude Code; lanes ends within it.
export const claudeCodeInstall: InstallSpec = {
  agent: 'claude-code',
  projectFile: '.claude/settings.json',
  userFile: '.claude/settings.json',
  shape: 'nested',
  handlerExtra: {},
  newFile: {},
  entries: [
    { event: 'SessionStart', arg: 'session-start', timeout: 10 },
    { event: 'PreToolUse', arg: 'pre-tool-use', matcher: 'Edit|Write|MultiEdit|NotebookEdit|Bash', timeout: 10 },
    { event: 'PostToolUse', arg: 'post-tool-use', matcher: 'Edit|Write|MultiEdit|NotebookEdit', timeout: 10 },
    { event: 'Stop', arg: 'stop', timeout: 30 },
    { event: 'SessionEnd', arg: 'session-end', timeout: 5 },
    // Attention (services/notify): a permission prompt or a question shows the session waiting;
    // a new prompt, working again. Notification and StopFailure only observe: run async.
    {
      event: 'Notification',
      arg: 'notification',
      matcher: WAITING_NOTIFICATIONS.join('|'),
      timeout: 10,
      extra: { async: true },
    },
    { event: 'StopFailure', arg: 'stop-failure', timeout: 10, extra: { async: true } },
    { event: 'UserPromptSubmit', arg: 'user-prompt-submit', timeout: 10 },
    // Its own worktrees (claude --worktree, isolated subagents) become lanes worktrees and
    // sessions: these replace Claude Code's git worktree handling (no matcher: it is ignored).
    { event: 'WorktreeCreate', arg: 'worktree-create', timeout: 120, optional: 'worktrees' },
    { event: 'WorktreeRemove', arg: 'worktree-remove', timeout: 120, optional: 'worktrees' },
    // Claude Code 2.1 never sends WorktreeRemove for a subagent's worktree a hook made: its end
    // settles it (removed when nothing changed, as Claude Code does; else saved and kept).
    { event: 'SubagentStop', arg: 'subagent-stop', timeout: 120, optional: 'worktrees' },
  ],
  notes: [
    "Claude Code's own worktrees (claude --worktree, subagents with isolation: worktree) are now made by lanes in <repo>.lanes/ as lanes sessions; WorktreeRemove keeps one with uncommitted work (saved in a snapshot) or in use. Opt out with --no-worktree-hooks.",
  ],
  mcp: {
    projectFile: '.mcp.json',
    userFile: '.claude.json',
    format: 'json',
    notes: ["Claude Code asks once before it starts a project's MCP servers (.mcp.json): approve `lanes`."],
  },
};
