import { CLAIM_KIND_RANK, OTHER_KIND_RANK } from '../../core/resource.js';

/**
 * A session's claims in the order a person reads them (core/resource.ts claimRank), then in key
 * order, as SQL both backends run: `firstClaims` reads the few `lanes ls` shows in this order.
 * The kinds are constants of lanes, never input.
 */
export function claimRankSql(kind: string): string {
  const whens = Object.entries(CLAIM_KIND_RANK)
    .map(([k, rank]) => `WHEN '${k}' THEN ${rank}`)
    .join(' ');
  return `CASE ${kind} ${whens} ELSE ${OTHER_KIND_RANK} END`;
}
