import type { InstallSpec } from '../install-spec.js';

// Copilot CLI loads every .github/hooks/*.json of the repository (once the folder is trusted) and
// ~/.copilot/hooks/*.json: lanes keeps its hooks in a file of its own. Flat entries
// {type, bash, timeoutSec, matcher} (CLI hooks reference; the matcher is a regex anchored on the
// tool name). Timeouts in seconds.
export const copilotInstall: InstallSpec = {
  agent: 'copilot',
  projectFile: '.github/hooks/lanes.json',
  userFile: '.copilot/hooks/lanes.json',
  shape: 'flat',
  handlerExtra: { type: 'command' },
  keys: { command: 'bash', timeout: 'timeoutSec' },
  newFile: { version: 1 },
  entries: [
    { event: 'sessionStart', arg: 'session-start', timeout: 10 },
    { event: 'preToolUse', arg: 'pre-tool-use', matcher: 'edit|create|apply_patch|bash', timeout: 10 },
    { event: 'postToolUse', arg: 'post-tool-use', matcher: 'edit|create|apply_patch', timeout: 10 },
    { event: 'agentStop', arg: 'agent-stop', timeout: 30 },
    { event: 'sessionEnd', arg: 'session-end', timeout: 5 },
    { event: 'notification', arg: 'notification', matcher: 'permission_prompt|elicitation_dialog', timeout: 10 },
    { event: 'userPromptSubmitted', arg: 'user-prompt-submitted', timeout: 10 },
    { event: 'errorOccurred', arg: 'error-occurred', timeout: 10 },
  ],
  notes: [
    'Copilot CLI loads .github/hooks/ only in a folder you trusted; `lanes hooks status` says whether this one is.',
  ],
  mcp: {
    projectFile: '.github/mcp.json',
    userFile: '.copilot/mcp-config.json',
    format: 'json',
    serverExtra: { type: 'local', tools: ['*'] },
    notes: [],
  },
};
