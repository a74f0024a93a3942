import { agentPid, identityOf } from '../core/process-identity.js';
import type { OwnerIdentity } from '../core/process-identity.js';
import type { Lanes } from '../index.js';

// Whom an MCP server acts for: the acting session, by the one rule of every door
// (lanes.sessions.acting): $LANES_SESSION of the agent when live and no nearer ancestor owns a
// session, else the live session owned by the nearest ancestor (the agent, whose hooks registered
// it). Failing both it registers one owned by the agent, and ends it (snapshot first) when the
// client disconnects. Resolved on every tool call (a /clear in the agent gives it a new session),
// never taken from the call's arguments: a tool call cannot act as another session.

export interface Identity {
  /** The agent process that started this server (the owner its sessions have). */
  owner: OwnerIdentity;
  agent: string | null;
  /** $LANES_SESSION as the server was started with. */
  envSession: string | null;
  /** The session this server registered itself, when it had to. */
  registered: string | null;
}

export function identityOfAgent(agent: string | null, env: Record<string, string | undefined>): Identity {
  const pid = agentPid(process.ppid);
  const owner = identityOf(pid) ?? identityOf(process.ppid);
  if (!owner) throw new Error(`cannot read the identity of the process that started lanes mcp (pid ${pid})`);
  return { owner, agent, envSession: env['LANES_SESSION'] || null, registered: null };
}

/** The session this call acts as (see above); registers one when none is found. */
export async function sessionFor(lanes: Lanes, me: Identity): Promise<{ id: string; how: string }> {
  const live = async (a: { id: string } | null) =>
    a !== null && (await lanes.sessions.get(a.id).catch(() => null))?.state === 'live';
  // The agent's LANES_SESSION may name a session that has died since: then the agent's own (its hooks').
  let acting = await lanes.sessions.acting({ env: me.envSession });
  if (!(await live(acting)) && me.envSession) acting = await lanes.sessions.acting({ env: null });
  if (acting && (await live(acting)))
    return acting.id === me.registered
      ? { id: acting.id, how: `registered by lanes mcp for the agent process (pid ${me.owner.pid})` }
      : acting;
  const made = await lanes.sessions.start({ pid: me.owner.pid, agent: me.agent, label: 'mcp' });
  me.registered = made.id;
  return { id: made.id, how: `registered by lanes mcp for the agent process (pid ${me.owner.pid})` };
}
