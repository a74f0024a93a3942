import type { InstallSpec } from '../install-spec.js';

// No matcher on the tool events: Codex's tool names vary by version (apply_patch, shell, …) and the
// adapter ignores the tools it does not know at once. SessionEnd must finish within 3 s.
export const codexInstall: InstallSpec = {
  agent: 'codex',
  projectFile: '.codex/hooks.json',
  userFile: '.codex/hooks.json',
  shape: 'nested',
  handlerExtra: {},
  newFile: {},
  entries: [
    { event: 'SessionStart', arg: 'session-start', timeout: 10 },
    { event: 'PreToolUse', arg: 'pre-tool-use', timeout: 10 },
    { event: 'PostToolUse', arg: 'post-tool-use', timeout: 10 },
    { event: 'Stop', arg: 'stop', timeout: 30 },
    { event: 'SessionEnd', arg: 'session-end', timeout: 3 },
    { event: 'UserPromptSubmit', arg: 'user-prompt-submit', timeout: 10 },
  ],
  notes: [
    'Codex runs these hooks only after you trust them: open `/hooks` in Codex and approve the lanes entries.',
    'Codex reads project hooks (.codex/) only in a project it trusts; a headless `codex exec` in an untrusted project skips them without a word: `lanes hooks status` says whether this one is trusted.',
  ],
  mcp: { projectFile: '.codex/config.toml', userFile: '.codex/config.toml', format: 'toml', notes: [] },
};
