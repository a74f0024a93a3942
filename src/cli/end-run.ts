import type { Lanes } from '../index.js';
import type { RunResult } from './agent-child.js';

/**
 * The one end of a run lanes launched (lanes new's wrapper, lanes start -- CMD): its uncommitted
 * work snapshotted first, and a death recorded and told with it (issue 45): the command killed by
 * a signal nobody sent through lanes, or an agent's run that failed. When the end fails (git
 * refusing, a full disk) the session stays open with its work untouched, and the caller says so.
 */
export async function endRun(lanes: Lanes, id: string, r: RunResult): Promise<void> {
  const s = await lanes.sessions.get(id).catch(() => null);
  const died = r.died && (r.died.startsWith('killed') || s?.agent) ? { how: r.died } : null;
  await lanes.sessions.end(id, { reason: r.reason, asOwner: true, ...(died ? { death: died } : {}) });
}
