import { agentPid, identityOf } from '../core/process-identity.js';
import type { OwnerIdentity } from '../core/process-identity.js';
import type { Lanes, SessionView } from '../index.js';

// Whom an MCP server acts for. An agent starts its MCP servers as children (directly, or through
// a shell or npx), and its hooks registered its session owned by that same agent process
// (services/hooks/policy.ts, attach). So the server serves the live session owned by the agent
// process above it; failing that $LANES_SESSION when that session is live (`lanes start -- agent`
// sets it for the agent and everything it starts); failing that it registers one owned by the
// agent. Resolved on every tool call (a /clear in the agent gives it a new session), never taken
// from the call's arguments: a tool call cannot act as another session.

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

const ownedBy = (s: SessionView, o: OwnerIdentity) =>
  s.owner.host === o.host && s.owner.bootId === o.bootId && s.owner.pid === o.pid && s.owner.startTime === o.startTime;

/** The session this call acts as (see above); registers one when none is found. */
export async function sessionFor(lanes: Lanes, me: Identity): Promise<{ id: string; how: string }> {
  const live = (await lanes.sessions.list()).filter((s) => s.state === 'live');
  const owned = live.filter((s) => ownedBy(s, me.owner)).sort((a, b) => b.createdAt - a.createdAt);
  // The agent's hooks registered its session under `<agent>:<its id>`; prefer it to one this server made.
  const byHooks = owned.find((s) => s.id !== me.registered);
  if (byHooks) return { id: byHooks.id, how: `the session of the agent process (pid ${me.owner.pid})` };
  if (me.envSession && live.some((s) => s.id === me.envSession))
    return { id: me.envSession, how: 'LANES_SESSION of the agent' };
  if (me.registered && owned.some((s) => s.id === me.registered))
    return { id: me.registered, how: `registered by lanes mcp for the agent process (pid ${me.owner.pid})` };
  const made = await lanes.sessions.start({ pid: me.owner.pid, agent: me.agent, label: 'mcp' });
  me.registered = made.id;
  return { id: made.id, how: `registered by lanes mcp for the agent process (pid ${me.owner.pid})` };
}
