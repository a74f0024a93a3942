import { runRecord } from '../agents/run-record.js';
import { hostId, lineage } from '../core/process-identity.js';
import { realDir } from '../core/real-dir.js';
import { loginDir } from '../core/carry-conversation.js';
import type { AgentName, Lanes, SeatLease } from '../index.js';

// The wrapper's own look at what the agent on a seat recorded (agents/run-record.ts), for an agent
// whose hooks cannot say that its login ran out (Codex 0.171: no hook carries the error, and `codex
// exec` exits on it; Gemini CLI 0.61 runs none on it, and may wait a Google login's quota out for
// hours): read while it runs and once more when it exits, the seat exhausted as a hook
// would have done it (journaled, notified), and the conversation found to resume on the next seat.

export interface RecordWatch {
  /** Reads the agent's record; marks the seat exhausted when it says the login ran out. */
  look(): Promise<void>;
  /** The agent's conversation as its record names it (Codex's thread id, Gemini CLI's session id), once seen. */
  readonly conversation: string | null;
  /** Why a conversation the record names was not taken as this run's (another session was seen working in the same directory), or null. */
  readonly notGuessed: string | null;
}

/**
 * `known`: the conversation the run resumes (a move from another seat), else the one found in a
 * record written since this run began.
 */
export function watchRecord(
  lanes: Lanes,
  id: string,
  lease: SeatLease,
  known: string | null,
  /** The agent's TMPDIR (where Gemini CLI writes its error reports). */
  tmp: string,
  /** The agent's working directory (Gemini CLI's chats are kept per project). */
  cwd: string,
  /** The log the agent was asked to keep (run-record.ts agentLog: Gemini CLI's debug log), if any. */
  log: string | null = null,
): RecordWatch {
  // The agent's record keeps this machine's times: the run is compared with them, not the store's clock.
  const since = Date.now();
  const dir = loginDir(lease.seat.agent, lease.seat.env);
  let conversation = known;
  let notGuessed: string | null = null;
  let told = false;
  return {
    get conversation() {
      return conversation;
    },
    get notGuessed() {
      return notGuessed;
    },
    async look() {
      const r = runRecord(lease.seat.agent, dir, conversation, since, tmp, cwd, log);
      if (!r) return;
      // Found by looking (no hook named it): the newest conversation begun in this directory on
      // this login. Another session working in the same directory (a shared worktree) on this host
      // may have begun it: then it is nobody's guess for the rest of the run (that session ending
      // does not make its conversation ours), and the next seat starts afresh, said.
      if (r.conversation && conversation === null && notGuessed === null) {
        notGuessed = await otherSessionIn(lanes, id, cwd).catch(
          (e: Error) => `lanes could not tell whether another session works here (${e.message})`,
        );
        if (!notGuessed) conversation = r.conversation;
      }
      if (!r.ranOut || told) return;
      told = true;
      await lanes.seats
        .exhausted(
          {
            agent: lease.seat.agent as AgentName,
            sessions: [id],
            env: lease.seat.env,
            why: r.ranOut.why,
            message: r.ranOut.message,
            resetAt: r.ranOut.resetAt,
          },
          { notify: true },
        )
        .catch((e: Error) =>
          process.stderr.write(`lanes: could not mark seat ${lease.seat.name} exhausted: ${e.message}\n`),
        );
    },
  };
}

/**
 * "session S works in DIR too" when another live session on this host has directory `cwd`, else
 * null. A session whose process descends from this one is the run's own agent (its hooks register
 * it as `AGENT:<id>`: hooks that did not name the conversation to the wrapper), not another.
 */
async function otherSessionIn(lanes: Lanes, id: string, cwd: string): Promise<string | null> {
  const here = realDir(cwd);
  const host = hostId();
  for (const s of await lanes.sessions.list()) {
    if (s.id === id || s.state !== 'live' || s.owner.host !== host || realDir(s.cwd) !== here) continue;
    if (lineage(s.owner.pid, 13, false).some((p) => p.pid === process.pid)) continue;
    return `session ${s.id} works in ${here} too`;
  }
  return null;
}
