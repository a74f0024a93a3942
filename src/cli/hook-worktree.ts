import { existsSync } from 'node:fs';
import type { Payload } from '../agents/adapter.js';
import { pidFrom } from '../agents/adapter.js';
import { agentPid, lineage } from '../core/process-identity.js';
import { assertSessionId } from '../core/ids.js';
import type { Io } from './command.js';
import { readStdinJson } from './stdin-json.js';
import { carryHooksInto } from './carry.js';

// `lanes hook claude-code worktree-create|worktree-remove`: Claude Code's WorktreeCreate and
// WorktreeRemove, which replace its own `git worktree` handling. Unlike every other hook these do
// not fail open: Claude Code has no fallback, so a worktree lanes cannot make is an error it shows
// ("WorktreeCreate hook failed: <stderr>"). Its released runner (2.1.332) sends `name` (not the
// documented worktree_name) and reads the LAST non-empty line of stdout as the path; WorktreeRemove
// sends worktree_path, treats exit 0 as removed (it deletes nothing itself) and anything else as kept.

const field = (p: Payload, ...keys: string[]): string | null => {
  for (const k of keys) {
    const v = p[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return null;
};

export async function claudeWorktreeHook(event: string, io: Io): Promise<number> {
  let payload: Payload;
  try {
    payload = readStdinJson();
  } catch (e) {
    io.stderr(`lanes: ${event}: ${(e as Error).message}\n`);
    return 1;
  }
  const agentSession = field(payload, 'session_id') ?? process.env['CLAUDE_CODE_SESSION_ID'] ?? null;
  if (!agentSession) {
    io.stderr(`lanes: ${event}: the payload has no session_id\n`);
    return 1;
  }
  // The agent: the pid it names, else the first process above the hook's shell that is not a shell or lanes.
  const pid = pidFrom(process.env['CLAUDE_PID']) ?? agentPid(process.ppid);
  try {
    // Inside: a bad id is this hook's exit 1, never the runner's fail-open exit 0 ("removed").
    const session = assertSessionId(`claude-code:${agentSession}`, 'claude-code session id');
    if (event === 'worktree-create') return await create(payload, session, pid, io);
    return await remove(payload, session, pid, io);
  } catch (e) {
    io.stderr(
      `lanes: ${event === 'worktree-create' ? 'no worktree made' : 'worktree kept'}: ${(e as Error).message}\n`,
    );
    return 1;
  }
}

async function create(payload: Payload, session: string, pid: number, io: Io): Promise<number> {
  const name = field(payload, 'name', 'worktree_name');
  if (!name) {
    io.stderr('lanes: no worktree made: the payload names none (name)\n');
    return 1;
  }
  const cwd = field(payload, 'base_path', 'cwd') ?? process.cwd();
  const lanes = await io.lanes({ cwd, session: null, notice: false });
  const made = await lanes.worktrees.agentCreate({ agent: 'claude-code', session, name, pid });
  // lanes' project hooks of where the agent stands go with it, WorktreeRemove among them.
  const carried = await carryHooksInto(lanes, made.path);
  for (const f of carried?.failed ?? [])
    io.stderr(`lanes: ${f.agent} hooks not installed in the worktree: ${f.reason}\n`);
  if (made.unregistered) io.stderr(`lanes: worktree made, but no session registered for it: ${made.unregistered}\n`);
  io.stdout(`${made.path}\n`);
  return 0;
}

async function remove(payload: Payload, session: string, pid: number, io: Io): Promise<number> {
  const path = field(payload, 'worktree_path', 'path');
  if (!path) {
    io.stderr('lanes: worktree kept: the payload names no worktree_path\n');
    return 1;
  }
  // Claude Code and this hook's shell stand in the worktree they remove: theirs to leave.
  const pids = lineage(process.pid, 4, false).map((p) => p.pid);
  const lanes = await io.lanes({ cwd: existsSync(path) ? path : process.cwd(), session: null, notice: false });
  const r = await lanes.worktrees.agentRemove({ agent: 'claude-code', session, path, pid, pids });
  if (r.refused) {
    io.stderr(`lanes: kept ${path}: ${r.refused.why}\n`);
    return 1;
  }
  const saved = r.snapshot ? `; its work is saved in ${r.snapshot.ref}` : '';
  io.stderr(`lanes: removed ${path}${saved}${r.notes.length ? `; ${r.notes.join('; ')}` : ''}\n`);
  return 0;
}
