import type { InstallSpec } from '../install-spec.js';

export const cursorInstall: InstallSpec = {
  agent: 'cursor',
  projectFile: '.cursor/hooks.json',
  userFile: '.cursor/hooks.json',
  shape: 'flat',
  handlerExtra: {},
  newFile: { version: 1 },
  entries: [
    { event: 'sessionStart', arg: 'session-start', timeout: 10 },
    { event: 'preToolUse', arg: 'pre-tool-use', matcher: 'Write|Edit|StrReplace|Delete', timeout: 10 },
    { event: 'beforeShellExecution', arg: 'before-shell-execution', timeout: 10 },
    { event: 'afterFileEdit', arg: 'after-file-edit', timeout: 10 },
    { event: 'stop', arg: 'stop', timeout: 30 },
    { event: 'sessionEnd', arg: 'session-end', timeout: 5 },
  ],
  notes: [
    "Cursor also runs Claude Code's hooks; with lanes' Cursor hooks installed, lanes' Claude Code hooks stay silent for Cursor's events, so lanes acts once per event.",
  ],
  mcp: {
    projectFile: '.cursor/mcp.json',
    userFile: '.cursor/mcp.json',
    format: 'json',
    notes: ['Cursor lists the lanes MCP server in its settings (MCP), where it can be turned on or off.'],
  },
};
