import type { HookEvent, HookKind } from '../../src/index.js';

/** A Claude Code hook event as the adapter would hand it to the library (in-process tests of lanes.hook). */
export const event = (kind: HookKind, id: string, cwd: string, extra: Partial<HookEvent> = {}): HookEvent => ({
  agent: 'claude-code',
  kind,
  agentSessionId: id,
  cwd,
  paths: [],
  command: null,
  source: null,
  subagent: null,
  agentPid: process.pid,
  envFile: null,
  toolName: null,
  message: null,
  quota: null,
  ...extra,
});
