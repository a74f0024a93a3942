import { basename, join } from 'node:path';
import { LanesError } from './errors.js';

// How a lanes run starts each agent's released CLI (lanes new, up, start -- CMD): which agent a
// command is, how its first task reaches it without the text on the command line (where every
// user's `ps` reads it), and what it needs to work in a lanes worktree. Checked against the
// released CLIs in their interactive mode (Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0,
// Copilot CLI 1.0.102, OpenCode 1.18.33; a helper's runs in tmux against local model servers):
// - Claude Code reads a piped stdin as its first prompt and reopens the terminal for the keys;
// - Gemini CLI and Copilot CLI take `-i "@FILE"` (Gemini inlines the file; Copilot names it and its
//   model reads it), FILE in a directory given to them (--include-directories, --add-dir);
// - Codex, OpenCode and Cursor's agent read no prompt from a file or stdin in interactive mode
//   (Codex: "stdin is not a terminal"; OpenCode stops reading keys): their first prompt is a
//   sentence naming the task's file, so only its path is on the command line.

/** The agent a command runs, by its program's name. */
const BY_PROGRAM: Record<string, string> = {
  claude: 'claude-code',
  codex: 'codex',
  gemini: 'gemini',
  copilot: 'copilot',
  opencode: 'opencode',
  'cursor-agent': 'cursor',
  agent: 'cursor',
};

export function agentOfCommand(cmd: readonly string[]): string | null {
  const program = cmd[0] ? basename(cmd[0]) : '';
  return BY_PROGRAM[program] ?? null;
}

/** The agents a first task can be handed to, and how (said in `lanes new --help`). */
export const TASK_DELIVERY: Record<string, string> = {
  'claude-code': 'stdin (the file piped in; the terminal stays the keyboard)',
  gemini: '-i @FILE with --include-directories',
  copilot: '-i @FILE with --add-dir',
  codex: 'a first prompt naming the file',
  opencode: '--prompt naming the file',
  cursor: 'a first prompt naming the file',
};

/** The task's largest size: a ticket's text and a plan fit; a log pasted whole does not. */
export const TASK_MAX_BYTES = 256 * 1024;

/** Checks a task before anything is made: its text, and that the run's agent can take one. */
export function checkTask(task: string, agent: string | null, cmd: readonly string[]): string {
  const who = agent ?? agentOfCommand(cmd);
  if (!who || !TASK_DELIVERY[who])
    throw new LanesError(
      'E_USAGE',
      who
        ? `agent ${who} takes no first task from lanes`
        : `--prompt needs to know the agent: ${cmd[0] ? `${JSON.stringify(basename(cmd[0]))} is not one lanes knows` : 'give --agent'}`,
      {
        hint: `give --agent (one of ${Object.keys(TASK_DELIVERY).join(', ')}), or put the task in the command yourself`,
      },
    );
  if (task.trim() === '')
    throw new LanesError('E_USAGE', 'the task is empty', {
      hint: 'give --prompt TEXT or --prompt-file FILE with the task in it',
    });
  if (Buffer.byteLength(task) > TASK_MAX_BYTES)
    throw new LanesError('E_USAGE', `the task is ${Buffer.byteLength(task)} bytes, over ${TASK_MAX_BYTES}`, {
      hint: 'put the long part in a file of the repository and name it in a shorter task',
    });
  if (task.includes('\0'))
    throw new LanesError('E_USAGE', 'the task has a NUL byte: is it a binary file?', { hint: 'give a text file' });
  return who;
}

export interface AgentStart {
  cmd: string[];
  /** A file to give the agent as its stdin (Claude Code's first prompt), or null. */
  stdin: string | null;
}

/**
 * The command a lanes run starts `agent` with: its first task (in `taskFile`, in the session's
 * private runtime directory `runDir`) handed over as that agent takes one, and for Codex in a
 * linked worktree that worktree's git directory writable (Codex's workspace-write sandbox keeps it
 * read-only: no commit of its own work otherwise).
 */
export function agentStart(
  agent: string | null,
  cmd: readonly string[],
  o: { taskFile: string | null; runDir: string; worktreeGitDir: string | null },
): AgentStart {
  const who = agent ?? agentOfCommand(cmd);
  const [bin = '', ...rest] = cmd;
  let args = [...rest];
  // Only Codex's own program takes --add-dir (after its subcommand, which has options of its own).
  if (agentOfCommand(cmd) === 'codex' && o.worktreeGitDir) {
    const at = ['exec', 'e', 'resume'].includes(rest[0] ?? '') ? 1 : 0;
    args = [...args.slice(0, at), '--add-dir', o.worktreeGitDir, ...args.slice(at)];
  }
  if (!o.taskFile) return { cmd: [bin, ...args], stdin: null };
  const pointer = `Your task is in the file ${o.taskFile} (lanes wrote it for this session). Read it first, then do it.`;
  switch (who) {
    case 'claude-code':
      return { cmd: [bin, ...args], stdin: o.taskFile };
    case 'gemini':
      return { cmd: [bin, ...args, '--include-directories', o.runDir, '-i', `@${o.taskFile}`], stdin: null };
    case 'copilot':
      return { cmd: [bin, ...args, '--add-dir', o.runDir, '-i', `@${o.taskFile}`], stdin: null };
    case 'opencode':
      return { cmd: [bin, ...args, '--prompt', pointer], stdin: null };
    default:
      return { cmd: [bin, ...args, pointer], stdin: null };
  }
}

/** Where the wrapper writes the task: the session's private runtime directory. */
export const taskFileIn = (runDir: string) => join(runDir, 'task.md');
