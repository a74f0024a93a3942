import { formatAge } from '../core/duration.js';
import type { OwnerIdentity } from '../core/process-identity.js';
import type { SessionRecord } from '../store/types.js';

/** "session s-… (label, agent claude-code, ticket SEAT-42)" */
export function describeSession(s: SessionRecord | null, fallbackId?: string): string {
  if (!s) return `session ${fallbackId ?? '?'} (no longer in the store)`;
  const bits = [s.label, s.agent && `agent ${s.agent}`, s.ticket && `ticket ${s.ticket}`].filter(Boolean);
  return `session ${s.id}${bits.length ? ` (${bits.join(', ')})` : ''}`;
}

/** "pid 123 on host-a `node agent.js`, since 18:22:01 (3s ago)" */
export function describeHolder(owner: OwnerIdentity, since: number, now: number, command?: string | null): string {
  // The program by its name (an nvm or unpacked Node's path is long), so the 80 characters shown
  // keep what it runs: `node /repo/scripts/agent.mjs …`, not `/home/u/.nvm/versions/node/v24…`.
  const shown = command?.replace(/^\S*\/([^\s/]+)(?=\s|$)/, '$1');
  const cmd = shown ? ` \`${shown.length > 80 ? shown.slice(0, 77) + '...' : shown}\`` : '';
  const at = new Date(since).toISOString().slice(11, 19);
  return `pid ${owner.pid} on ${owner.host}${cmd}, since ${at} UTC (${formatAge(now - since)} ago)`;
}
