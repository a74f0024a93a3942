import { join } from 'node:path';
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
  /**
   * Variables that make the agent bill per call, or that put another login in the seat's place (a
   * token of another account): a session on a seat never inherits them unless the seat names them.
   */
  payPerUse: readonly string[];
  /**
   * The directory under the home that the first of `selects` replaces ('' : the home itself), so
   * lanes finds the agent's user-level settings (its hooks) where the agent reads them on a seat.
   */
  userDir?: string;
}

// Checked against the released CLIs (Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0,
// Copilot CLI 1.0.102: their binaries' environment reads) and their docs. Cursor's and OpenCode's
// are the documented ones: OpenCode keeps its logins in $XDG_DATA_HOME/opencode/auth.json, and
// any provider's key bills per call there.
export const AGENT_LOGINS: Record<AgentName, AgentLogin> = {
  'claude-code': {
    selects: ['CLAUDE_CONFIG_DIR'],
    payPerUse: [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'ANTHROPIC_FOUNDRY_API_KEY',
      'ANTHROPIC_AWS_API_KEY',
      'ANTHROPIC_PROFILE',
      'AWS_BEARER_TOKEN_BEDROCK',
      'CLAUDE_CODE_USE_BEDROCK',
      'CLAUDE_CODE_USE_VERTEX',
      'CLAUDE_CODE_USE_FOUNDRY',
      'CLAUDE_CODE_USE_ANTHROPIC_AWS',
      'CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD',
      'CLAUDE_CODE_USE_MANTLE',
      'CLAUDE_CODE_USE_GATEWAY',
      // Another subscription's login in the seat's place (not billed per call, but not this seat).
      'CLAUDE_CODE_OAUTH_TOKEN',
      'CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR',
      'CLAUDE_CODE_OAUTH_REFRESH_TOKEN',
      'CLAUDE_SECURESTORAGE_CONFIG_DIR',
    ],
    userDir: '.claude',
  },
  codex: {
    selects: ['CODEX_HOME'],
    payPerUse: ['OPENAI_API_KEY', 'CODEX_API_KEY', 'CODEX_ACCESS_TOKEN'],
    userDir: '.codex',
  },
  gemini: {
    selects: ['GEMINI_CLI_HOME'],
    payPerUse: [
      'GEMINI_API_KEY',
      'GOOGLE_API_KEY',
      'GOOGLE_GENAI_USE_VERTEXAI',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'GOOGLE_GEMINI_BASE_URL',
      'GEMINI_CLI_USE_COMPUTE_ADC',
    ],
    userDir: '',
  },
  copilot: {
    selects: ['COPILOT_HOME'],
    payPerUse: [
      'COPILOT_GITHUB_TOKEN',
      'GH_TOKEN',
      'GITHUB_TOKEN',
      'COPILOT_PROVIDER_BASE_URL',
      'COPILOT_PROVIDER_API_KEY',
      'COPILOT_PROVIDER_BEARER_TOKEN',
    ],
    userDir: '.copilot',
  },
  cursor: { selects: ['CURSOR_CONFIG_DIR'], payPerUse: ['CURSOR_API_KEY', 'CURSOR_AUTH_TOKEN'] },
  opencode: {
    selects: ['XDG_DATA_HOME'],
    payPerUse: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY', 'GROQ_API_KEY'],
  },
};

/**
 * Where `agent` reads a user-level file given relative to the home (`rel`, e.g. `.claude/settings.json`)
 * when its login directory is moved by `env` (a seat): Claude Code reads `$CLAUDE_CONFIG_DIR/settings.json`
 * and `$CLAUDE_CONFIG_DIR/.claude.json`, Codex `$CODEX_HOME/…`, Gemini `$GEMINI_CLI_HOME/.gemini/…`.
 */
export function agentUserFile(
  agent: AgentName,
  rel: string,
  home: string,
  env: Record<string, string | undefined>,
): string {
  const login = AGENT_LOGINS[agent];
  const dir = login.userDir === undefined ? undefined : env[login.selects[0] as string]?.trim();
  const under = login.userDir ?? '';
  if (!dir) return join(home, rel);
  if (under === '') return join(dir, rel);
  if (rel.startsWith(`${under}/`)) return join(dir, rel.slice(under.length + 1));
  return rel === `${under}.json` ? join(dir, rel) : join(home, rel);
}

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
      // `codex [flags] [PROMPT]` -> `codex resume ID [flags]`; `codex exec [flags] PROMPT` -> `codex exec
      // [flags] resume ID CONTINUE` (exec's own options go before resume); the first prompt is not
      // sent again. A headless resume needs a prompt of its own (without one `codex exec` reads
      // stdin, and exits 1 on "No prompt provided"): it is told to carry on.
      return rest[0] === 'exec'
        ? [bin, 'exec', ...flagsOnly(rest.slice(1)), 'resume', id, CODEX_CONTINUE]
        : [bin, 'resume', id, ...flagsOnly(rest)];
    case 'gemini':
      return geminiResume(bin, rest, id);
    default:
      return null;
  }
}

/** What a headless Codex resumed on another seat is told (its conversation holds the task). */
export const CODEX_CONTINUE = 'Continue the task where you left off.';
/** What a Gemini CLI resumed on another seat is told in place of its first prompt (then that prompt, if any). */
export const GEMINI_CONTINUE = CODEX_CONTINUE;

/**
 * `gemini [flags] [PROMPT…]` -> `gemini [flags] --resume ID`, the prompt (-p/--prompt, -i/
 * --prompt-interactive, or the positional query) replaced by GEMINI_CONTINUE and the first prompt
 * quoted as the task: Gemini CLI 0.61 sends a resumed chat's prompt as a new turn after the old ones
 * (the first prompt alone would start the task over), `gemini -p` needs a prompt, and the chat may
 * have lost the first one: headless, a SessionStart hook's context is put before the prompt in one
 * message (gemini-3HFX2LNT.js:17591), and a resume drops every user message that begins with
 * <hook_context> (convertSessionToClientHistory, chunk-JDPZ4CE3.js:285867), so with lanes' hooks
 * the task itself would be gone. --session-id and --session-file cannot go with --resume (Gemini CLI
 * refuses the three together); a resume the person gave is replaced by this conversation's.
 */
function geminiResume(bin: string, args: readonly string[], id: string): string[] {
  const out: string[] = [];
  const prompts: string[] = [];
  let at = -1; // where the prompt goes: after its flag, or where the positional query was
  // yargs gives a string option the next word unless that word is itself an option.
  const value = (i: number) => args[i + 1] !== undefined && !(args[i + 1] as string).startsWith('-');
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    if (a === '--') {
      // Every word after it is the query's.
      prompts.push(args.slice(i + 1).join(' '));
      if (at < 0) at = out.length;
      break;
    } else if (!a.startsWith('-')) {
      prompts.push(a);
      if (at < 0) at = out.length;
    } else if (GEMINI_DROPPED.has(flag)) {
      if (eq < 0 && value(i)) i++;
    } else if (GEMINI_PROMPTS.has(flag)) {
      prompts.push(eq > 0 ? a.slice(eq + 1) : value(i) ? (args[++i] as string) : '');
      out.push(flag);
      if (at < 0) at = out.length;
    } else {
      out.push(a);
      if (eq < 0 && GEMINI_VALUE_FLAGS.has(a) && value(i)) out.push(args[++i] as string);
    }
  }
  const task = prompts.join(' ').trim();
  if (at >= 0) out.splice(at, 0, task ? `${GEMINI_CONTINUE} The task, as first given: ${task}` : GEMINI_CONTINUE);
  return [bin, ...out, '--resume', id];
}

// Gemini CLI 0.61.0's options (gemini --help): those that take a value, and those lanes replaces.
const GEMINI_DROPPED = new Set(['--resume', '-r', '--session-id', '--session-file']);
const GEMINI_PROMPTS = new Set(['-p', '--prompt', '-i', '--prompt-interactive']);
const GEMINI_VALUE_FLAGS = new Set([
  '-m',
  '--model',
  '-w',
  '--worktree',
  '--approval-mode',
  '--policy',
  '--admin-policy',
  '--allowed-mcp-server-names',
  '--allowed-tools',
  '-e',
  '--extensions',
  '--delete-session',
  '--include-directories',
  '-o',
  '--output-format',
]);

/** The options of an argument list without its positional words (a prompt): `--flag`, `--flag=v`, `-x`, and a flag's value. */
function flagsOnly(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') break;
    if (!a.startsWith('-')) continue;
    out.push(a);
    // A flag that takes a value without '=' keeps the word after it.
    const next = args[i + 1];
    if (!a.includes('=') && CODEX_VALUE_FLAGS.has(a) && next !== undefined) {
      out.push(next);
      i++;
    }
  }
  return out;
}

// Codex's options that take a value (codex --help, codex exec --help, 0.171.0).
const CODEX_VALUE_FLAGS = new Set([
  '-c',
  '--config',
  '-m',
  '--model',
  '-p',
  '--profile',
  '-s',
  '--sandbox',
  '-a',
  '--ask-for-approval',
  '-C',
  '--cd',
  '-i',
  '--image',
  '--add-dir',
  '--output-schema',
  '-o',
  '--output-last-message',
  '--color',
  '--enable',
  '--disable',
  '--local-provider',
]);
