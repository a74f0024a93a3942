import type { InstallSpec } from '../install-spec.js';

// Gemini CLI timeouts are in MILLISECONDS.
export const geminiInstall: InstallSpec = {
  agent: 'gemini',
  projectFile: '.gemini/settings.json',
  userFile: '.gemini/settings.json',
  shape: 'nested',
  // Each entry is named lanes-<event> (lanes-before-tool, …): see config-file.ts.
  handlerExtra: { name: 'lanes' },
  newFile: {},
  entries: [
    { event: 'SessionStart', arg: 'session-start', timeout: 10000 },
    { event: 'BeforeTool', arg: 'before-tool', matcher: 'write_file|replace|run_shell_command', timeout: 10000 },
    { event: 'AfterTool', arg: 'after-tool', matcher: 'write_file|replace', timeout: 10000 },
    { event: 'AfterAgent', arg: 'after-agent', timeout: 30000 },
    { event: 'SessionEnd', arg: 'session-end', timeout: 5000 },
    // Gemini awaits its Notification hooks before the confirmation dialog: a short timeout.
    { event: 'Notification', arg: 'notification', timeout: 3000 },
    { event: 'BeforeAgent', arg: 'before-agent', timeout: 10000 },
  ],
  notes: [],
  mcp: { projectFile: '.gemini/settings.json', userFile: '.gemini/settings.json', format: 'json', notes: [] },
};
