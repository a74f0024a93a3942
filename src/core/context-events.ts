import type { AgentName, HookKind } from './hook-event.js';

/**
 * The hook events whose answer puts text in front of each agent's model (its adapter renders a
 * decision's `context` there): where lanes' warnings and a person's `lanes tell` reach the agent.
 * test/agents/context-events checks each entry against the adapter's own rendering.
 */
export const CONTEXT_EVENTS: Record<AgentName, readonly HookKind[]> = {
  // PreToolUse and SessionStart additionalContext; UserPromptSubmit's at the next turn.
  'claude-code': ['session-start', 'pre-edit', 'pre-shell', 'prompt'],
  codex: ['session-start', 'pre-edit', 'pre-shell'],
  // BeforeTool has no context field: after an edit (AfterTool), or at the session's start.
  gemini: ['session-start', 'post-edit'],
  copilot: ['session-start', 'pre-edit', 'pre-shell', 'post-edit'],
  cursor: ['session-start', 'pre-edit', 'pre-shell'],
  opencode: ['session-start', 'post-edit'],
};
