import { foldPath } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import type { Store } from '../../store/types.js';

/**
 * On a case-insensitive file system `path:src/Billing/` names the claim `path:src/billing/` the
 * session made: released (or checked) in the spelling it was claimed with, which the store keeps.
 */
export async function asHeld(store: Store, id: string, refs: ResourceRef[]): Promise<ResourceRef[]> {
  if (!refs.some((r) => r.fold)) return refs;
  const held = await store.listClaims({ sessionId: id });
  return refs.map((r) => {
    const c =
      r.fold && held.find((h) => h.kind === 'path' && h.scope === r.scope && foldPath(h.name) === foldPath(r.name));
    return c ? { ...r, name: c.name } : r;
  });
}
