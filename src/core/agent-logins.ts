import type { AgentName } from './hook-event.js';

// What selects each agent's login, and what makes it bill per call instead: the facts seats
// (services/seats/) are built on. A seat names the login by the variables in `selects` (a config
// directory holding that login's credentials; never a secret itself). The variables in `payPerUse`
// make the agent use an API key or a cloud account billed by the call, which wins over a
// subscription login in every agent that reads them: a session on a seat never inherits them.
// Checked against each agent's released CLI (test/real-agents, docs in the README's Seats).

export interface AgentLogin {
  /** Variables that select a login (the config directory); a seat sets one of them. */
  selects: readonly string[];
  /** Variables (or globs) that make the agent bill per call. */
  payPerUse: readonly string[];
}

export const AGENT_LOGINS: Record<AgentName, AgentLogin> = {
  'claude-code': {
    selects: ['CLAUDE_CONFIG_DIR'],
    payPerUse: [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'CLAUDE_CODE_USE_BEDROCK',
      'CLAUDE_CODE_USE_VERTEX',
      'CLAUDE_CODE_USE_FOUNDRY',
      'AWS_BEARER_TOKEN_BEDROCK',
    ],
  },
  codex: { selects: ['CODEX_HOME'], payPerUse: ['OPENAI_API_KEY', 'CODEX_API_KEY'] },
  gemini: {
    selects: ['GEMINI_CLI_HOME'],
    payPerUse: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_APPLICATION_CREDENTIALS'],
  },
  copilot: { selects: ['COPILOT_HOME'], payPerUse: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'] },
  cursor: { selects: ['CURSOR_CONFIG_DIR'], payPerUse: ['CURSOR_API_KEY'] },
  opencode: { selects: ['OPENCODE_CONFIG_DIR'], payPerUse: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY'] },
};

/** Every agent's pay-per-use variables: a session on any seat carries none of them it did not choose. */
export const ALL_PAY_PER_USE: readonly string[] = [...new Set(Object.values(AGENT_LOGINS).flatMap((l) => l.payPerUse))];

/** A variable name that holds a secret by its name's look (a key, a token, a password). */
export const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i;

/**
 * The command that continues an agent's conversation `id` in a new process (a move to another seat),
 * or null where the agent cannot resume one by id (it then starts afresh on the new seat).
 */
export function resumeCommand(agent: string | null, cmd: readonly string[], id: string): string[] | null {
  const [bin, ...rest] = cmd;
  if (!bin) return null;
  // A resume flag the person gave is replaced by this conversation's.
  const without = (flags: string[], withValue: string[]) => {
    const out: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i] as string;
      if (withValue.includes(a)) i++;
      else if (!flags.includes(a) && !withValue.some((f) => a.startsWith(`${f}=`))) out.push(a);
    }
    return out;
  };
  switch (agent) {
    case 'claude-code':
      return [bin, ...without(['--continue', '-c'], ['--resume', '-r', '--session-id']), '--resume', id];
    case 'codex':
      // `codex [flags]` → `codex resume ID [flags]`; `codex exec …` → `codex exec resume ID …`.
      return rest[0] === 'exec' ? [bin, 'exec', 'resume', id, ...rest.slice(1)] : [bin, 'resume', id, ...rest];
    case 'gemini':
      return [bin, ...without([], ['--resume', '-r']), '--resume', id];
    default:
      return null;
  }
}
