import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// An agent keeps its conversations under its login's directory: Claude Code's
// `$CLAUDE_CONFIG_DIR/projects/<project>/<id>.jsonl` (and `<id>/` beside it for its subagents and
// tool results). A conversation resumed on another seat (another directory) must be found there,
// or `claude --resume ID` answers "No conversation found" (seen with the released CLI): it is
// copied across before the move. Other agents: not carried (they start afresh if not found).

/** Copies conversation `id` from the login `from` to `to` (the seats' environments); false when there was none to copy. */
export function carryConversation(
  agent: string | null,
  id: string,
  from: NodeJS.ProcessEnv,
  to: NodeJS.ProcessEnv,
): boolean {
  if (agent !== 'claude-code') return false;
  const dir = (env: NodeJS.ProcessEnv) =>
    env['CLAUDE_CONFIG_DIR'] || (env['HOME'] ? join(env['HOME'], '.claude') : null);
  const src = dir(from);
  const dst = dir(to);
  if (!src || !dst || src === dst) return false;
  const projects = join(src, 'projects');
  let copied = false;
  let names: string[] = [];
  try {
    names = readdirSync(projects);
  } catch {
    return false;
  }
  for (const project of names) {
    for (const entry of [`${id}.jsonl`, id]) {
      const p = join(projects, project, entry);
      if (!existsSync(p)) continue;
      mkdirSync(join(dst, 'projects', project), { recursive: true });
      cpSync(p, join(dst, 'projects', project, entry), { recursive: true, force: true });
      copied = true;
    }
  }
  return copied;
}
