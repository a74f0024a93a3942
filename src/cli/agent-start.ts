import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { agentOfCommand, agentStart, taskFileIn } from '../core/agent-run.js';
import { homeDir } from '../core/builtins.js';
import { linkedGitDir } from '../core/linked-git-dir.js';
import type { Lanes } from '../index.js';

// What a lanes run starts its agent with (core/agent-run.ts decides; this writes the files): the
// session's task, written into its private runtime directory (0600) for the first start only (a
// move to the next seat resumes the conversation, which has it), and Gemini CLI's trust of that
// directory, so the agent starts with its task and no question waiting for a person.

export interface PreparedStart {
  cmd: string[];
  stdin: string | null;
  env: NodeJS.ProcessEnv;
}

export async function prepareStart(
  lanes: Lanes,
  id: string,
  cmd: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  first: boolean,
): Promise<PreparedStart> {
  const s = await lanes.sessions.get(id);
  const runDir = env['LANES_RUNTIME_DIR'] ?? '';
  const taskFile = first && s.task && runDir ? writePrivate(taskFileIn(runDir), s.task) : null;
  const agent = s.agent ?? agentOfCommand(cmd);
  const r = agentStart(agent, cmd, { taskFile, runDir, worktreeGitDir: linkedGitDir(cwd) });
  if (agent === 'gemini' && taskFile) return { ...r, env: { ...env, ...geminiTrusting(env, runDir) } };
  return { ...r, env };
}

/** Written new, private to the user (O_NOFOLLOW: never through a link someone planted). */
function writePrivate(file: string, text: string): string {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return file;
}

/**
 * Gemini CLI asks whether to trust a directory given with --include-directories, and waits for a
 * person: the run is given a copy of the user's trusted folders (GEMINI_CLI_TRUSTED_FOLDERS_PATH, or
 * ~/.gemini/trustedFolders.json) with the session's runtime directory added, in that directory.
 */
function geminiTrusting(env: NodeJS.ProcessEnv, runDir: string): Record<string, string> {
  const from =
    env['GEMINI_CLI_TRUSTED_FOLDERS_PATH'] || join(env['HOME'] || homeDir(), '.gemini', 'trustedFolders.json');
  let folders: Record<string, unknown> = {};
  try {
    const read = JSON.parse(readFileSync(from, 'utf8')) as unknown;
    if (read && typeof read === 'object' && !Array.isArray(read)) folders = read as Record<string, unknown>;
  } catch {
    // none yet, or unreadable: only the runtime directory is trusted
  }
  const file = writePrivate(
    join(runDir, 'gemini-trusted-folders.json'),
    JSON.stringify({ ...folders, [runDir]: 'TRUST_FOLDER' }),
  );
  return { GEMINI_CLI_TRUSTED_FOLDERS_PATH: file };
}
