// The hot commands' entries (run in every agent tool call or wrapping every command), part of the
// one list in registry.ts. Apart so that dist/hot.cjs (hot.ts) dispatches without building the
// whole registry in every tool call.
import type { CommandEntry } from './command.js';

export const EXEC: CommandEntry = {
  name: 'exec',
  group: 'sessions',
  hot: true,
  load: () => import('./commands/exec.js'),
  summary: "run CMD with the session's environment, secrets stripped",
};

export const HOOK: CommandEntry = {
  name: 'hook',
  group: 'admin',
  hot: true,
  load: () => import('./commands/hook.js'),
  summary: 'answer one agent hook call (JSON on stdin); used by the installed hooks',
};

export const STATUSLINE: CommandEntry = {
  name: 'statusline',
  group: 'record',
  hot: true,
  load: () => import('./commands/statusline.js'),
  summary: "Claude Code's status line: this session, its claims, who else works here (JSON on stdin)",
};

export const HOT_COMMANDS: readonly CommandEntry[] = [EXEC, HOOK, STATUSLINE];
