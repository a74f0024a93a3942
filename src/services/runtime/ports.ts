import { crypto, net } from '../../core/builtins.js';
import { LanesError, isLanesError } from '../../core/errors.js';
import type { LanesConfig } from '../../core/config.js';
import type { SessionRecord } from '../../store/types.js';
import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import type { Json, StateService } from '../state/state.js';

/** Session state key holding the session's port names -> ports (reserved for lanes). */
export const PORTS_KEY = 'lanes:ports';

/** Whether nothing listens on the port, checked by binding it on 127.0.0.1 and ::1. */
async function bindable(port: number): Promise<boolean> {
  for (const host of ['127.0.0.1', '::1']) {
    const ok = await new Promise<boolean>((resolve) => {
      const srv = net().createServer();
      srv.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'EADDRNOTAVAIL' || e.code === 'EAFNOSUPPORT'));
      srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
    });
    if (!ok) return false;
  }
  return true;
}

export function portsOf(state: Json | undefined): Record<string, number> {
  if (state === undefined) return {};
  if (state === null || typeof state !== 'object' || Array.isArray(state)) {
    throw new LanesError(
      'E_USAGE',
      "this session's state is not a JSON object, so lanes cannot record its ports in it",
      { hint: 'clear it (lanes state clear) or keep it an object' },
    );
  }
  const p = (state as Record<string, Json>)[PORTS_KEY];
  return p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, number>) : {};
}

/**
 * Leases a TCP port to a session for a name, stable for (session, name): a machine-scoped claim
 * `port:N` (so no two live sessions ever get one port, even before either binds it), chosen from
 * the configured range starting at a hash of (session, name), checked free by binding it.
 * Released when the session ends; a dead session's port is taken over by the next lease.
 */
export async function leasePort(
  ctx: LanesContext,
  claims: ClaimService,
  state: StateService,
  session: SessionRecord,
  name: string,
  config: LanesConfig,
): Promise<number> {
  if (!/^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(name))
    throw new LanesError(
      'E_USAGE',
      `port name ${JSON.stringify(name)} must be a letter followed by letters, digits or _ (at most 32)`,
    );
  const known = portsOf(await state.get(session.id))[name];
  if (known !== undefined) {
    // The claim on that one port (this machine's, as claims.claim below makes it), not every claim
    // the session holds: `lanes exec` asks this per port name in every call.
    const ref = { scope: `host:${ctx.host}`, kind: 'port', name: String(known) };
    const mine = (await ctx.store.conflictingClaims([ref])).some(
      (c) => c.sessionId === session.id && c.kind === 'port' && c.name === ref.name,
    );
    if (mine) return known;
  }
  const { low, high } = config.ports.range;
  const size = high - low + 1;
  const start = crypto().createHash('sha256').update(`${session.id}\0${name}`).digest().readUInt32BE(0) % size;
  for (let i = 0; i < size; i++) {
    const port = low + ((start + i) % size);
    if (!(await bindable(port))) continue;
    try {
      await claims.claim([`port:${port}`], { session: session.id });
    } catch (e) {
      if (isLanesError(e, 'E_CLAIM_HELD')) continue;
      throw e;
    }
    await state.mutate(session.id, (cur) => {
      const obj = (cur ?? {}) as Record<string, Json>;
      return { ...obj, [PORTS_KEY]: { ...portsOf(cur), [name]: port } };
    });
    return port;
  }
  throw new LanesError('E_CLAIM_HELD', `no free port left in ${low}-${high}`, {
    hint: 'end sessions you no longer need (lanes ls), or widen [ports] range in lanes.toml',
  });
}

export interface PortLease {
  port: number;
  /** The name the session leased it for (null when its state no longer says). */
  name: string | null;
  session: string;
  state: 'live' | 'dead' | 'ended';
  token: number;
}

/** The leased ports of this machine: its `port:N` claims, named from each holder's state. */
export async function listPorts(claims: ClaimService, state: StateService): Promise<PortLease[]> {
  const held = (await claims.list({})).filter((h) => h.claim.kind === 'port');
  const rows: PortLease[] = [];
  for (const h of held) {
    let names: Record<string, number> = {};
    try {
      names = portsOf(await state.get(h.claim.sessionId));
    } catch {
      // a state that is not an object names no ports; the lease itself is still listed
    }
    const name = Object.entries(names).find(([, p]) => String(p) === h.claim.name)?.[0] ?? null;
    rows.push({ port: Number(h.claim.name), name, session: h.claim.sessionId, state: h.state, token: h.claim.token });
  }
  return rows;
}
