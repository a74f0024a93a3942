// The dashboard's actions, each one call of the library the CLI makes for the same thing, and none
// destructive to a live session's work: snapshot any session (it only adds a private ref); end,
// adopt or release the claims of a dead one (a live one is refused, exit-3 style, as E_CLAIM_HELD);
// mark any session's committed work ready to land (lanes ready: it only joins the queue); tell a
// session's agent something (lanes tell: delivered through its hooks).
import { LanesError, describeSnapshot, isLanesError, openLanes } from '../index.js';
import type { Lanes, LanesOptions, SessionView } from '../index.js';
import type { Fleet } from './fleet.js';
import type { ActionName, ActionResult } from './view-types.js';

export const ACTIONS: readonly ActionName[] = ['snapshot', 'end', 'adopt', 'release', 'ready', 'tell'];

export interface ActionRequest {
  session: string;
  /** adopt: the live session that takes the dead one's work over. */
  into?: string;
  /** tell: the message. */
  message?: string;
}

function notLive(s: SessionView, what: string): void {
  if (s.state === 'live')
    throw new LanesError('E_CLAIM_HELD', `session ${s.id} is live: the dashboard does not ${what} a live session`, {
      hint: 'only dead sessions (owner gone) can be ended, adopted or released here',
    });
}

function parse(body: unknown, action: ActionName): ActionRequest {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b['session'] !== 'string' || b['session'] === '')
    throw new LanesError('E_USAGE', `${action}: the body needs {"session": "ID"}`);
  if (action === 'adopt' && (typeof b['into'] !== 'string' || b['into'] === ''))
    throw new LanesError('E_USAGE', 'adopt: the body needs {"session": "DEAD ID", "into": "LIVE ID"}');
  if (action === 'tell' && (typeof b['message'] !== 'string' || b['message'].trim() === ''))
    throw new LanesError('E_USAGE', 'tell: the body needs {"session": "ID", "message": "what to tell its agent"}');
  return {
    session: b['session'],
    ...(typeof b['into'] === 'string' ? { into: b['into'] } : {}),
    ...(typeof b['message'] === 'string' ? { message: b['message'] } : {}),
  };
}

/** Runs an action with a library object opened where the session works (its repository's snapshots live there). */
export async function runAction(
  lanes: Lanes,
  base: LanesOptions,
  fleet: Fleet,
  action: ActionName,
  body: unknown,
): Promise<ActionResult> {
  const req = parse(body, action);
  const target = await lanes.sessions.get(req.session);
  const at = async (session: SessionView, as: string | null) =>
    openLanes({ ...base, session: as, notice: false, cwd: session.worktree ?? session.cwd });
  let message: string;
  switch (action) {
    case 'snapshot': {
      const l = await at(target, null);
      try {
        const r = await l.snapshots.snapshot({ session: target.id, why: 'snapshot from lanes ui' });
        message = `${target.id}: ${describeSnapshot(r)}`;
      } finally {
        await l.close({ heartbeat: false });
      }
      break;
    }
    case 'end': {
      notLive(target, 'end');
      const l = await at(target, null);
      try {
        // Only as it was judged: a session re-attached meanwhile is left open (409).
        const r = await l.sessions.end(target.id, {
          reason: 'ended from lanes ui (owner gone)',
          unchangedSince: { lastSeenAt: target.lastSeenAt, owner: target.owner },
        });
        if (r.changed)
          throw new LanesError(
            'E_CLAIM_HELD',
            `session ${target.id} came back (re-attached or seen) since it was judged dead`,
            {
              hint: `nothing was ended${r.snapshot ? `; its work was saved as ${r.snapshot.ref}` : ''}; look again before acting on it`,
            },
          );
        message = `${r.snapshot ? `saved its work as ${r.snapshot.ref}; ` : ''}ended ${target.id}${r.released.length ? `, released ${r.released.length} claim(s)` : ''}`;
      } finally {
        await l.close({ heartbeat: false });
      }
      break;
    }
    case 'adopt': {
      notLive(target, 'adopt');
      const into = await lanes.sessions.get(req.into as string);
      if (into.state !== 'live')
        throw new LanesError('E_USAGE', `session ${into.id} is ${into.state}: adopt into a live session`);
      const l = await at(into, into.id);
      try {
        const r = await l.adopt(target.id);
        message = `${into.id} adopted ${target.id}: ${r.grants.length} claim(s)${r.worktree ? `, worktree ${r.worktree}` : ''}`;
      } finally {
        await l.close({ heartbeat: false });
      }
      break;
    }
    case 'ready': {
      // As a person marks it (lanes ready SESSION), from the repository it works in.
      const l = await at(target, null);
      try {
        const r = await l.queue.ready(target.id);
        message = `${target.id}${r.ticket ? ` (${r.ticket})` : ''} ${r.already ? 'was already' : 'is'} ready to land: ${r.branch} at ${r.tip.slice(0, 10)}, number ${r.position} in line (lanes land --queue)`;
      } finally {
        await l.close({ heartbeat: false });
      }
      break;
    }
    case 'tell': {
      const t = await lanes.sessions.tell(target.id, req.message ?? '');
      message = `told ${t.session} (#${t.seq}): pending until its agent's next tool call or turn`;
      break;
    }
    case 'release': {
      notLive(target, 'release the claims of');
      const released = await lanes.claims.releaseDead(target.id);
      message = `released ${released.length} claim(s) of ${target.id}`;
      break;
    }
  }
  await fleet.refresh().catch(() => undefined);
  return { ok: true, message };
}

export function httpStatusOf(e: unknown): 400 | 404 | 409 | 500 {
  if (!isLanesError(e)) return 500;
  if (e.code === 'E_USAGE') return 400;
  if (e.code === 'E_NOT_FOUND' || e.code === 'E_UNKNOWN_SESSION' || e.code === 'E_SESSION_NAME') return 404;
  if (e.code === 'E_CLAIM_HELD' || e.code === 'E_SESSION_ENDED') return 409;
  return 500;
}
