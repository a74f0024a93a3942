import type { LanesContext } from '../context.js';
import type { TrustApi } from './trust.js';

/** The library's `trust`, loaded on use: only lanes allow/deny need it (the gate is gate.ts). */
export function trustFacade(ctx: LanesContext): TrustApi {
  const api = async () => (await import('./trust.js')).trustApi(ctx);
  return {
    show: async (o) => (await api()).show(o),
    allow: async (o) => (await api()).allow(o),
    deny: async (o) => (await api()).deny(o),
    list: async () => (await api()).list(),
  };
}
