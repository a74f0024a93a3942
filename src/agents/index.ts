import { AGENTS } from '../core/hook-event.js';
import type { AgentName } from '../core/hook-event.js';
import { LanesError } from '../core/errors.js';
import type { AgentAdapter } from './adapter.js';
import { claudeCode } from './claude-code/adapter.js';
import { codex } from './codex/adapter.js';
import { copilot } from './copilot/adapter.js';
import { cursor } from './cursor/adapter.js';
import { gemini } from './gemini/adapter.js';
import { opencode } from './opencode/adapter.js';

export const ADAPTERS: Record<AgentName, AgentAdapter> = {
  'claude-code': claudeCode,
  codex,
  gemini,
  cursor,
  copilot,
  opencode,
};

export function agentName(name: string): AgentName {
  if ((AGENTS as readonly string[]).includes(name)) return name as AgentName;
  throw new LanesError('E_USAGE', `unknown agent ${JSON.stringify(name)}`, {
    hint: `use one of: ${AGENTS.join(', ')}`,
  });
}
