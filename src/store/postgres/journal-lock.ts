/** The advisory lock journal writers take last in their transaction (journal.ts; also inside lanes_claim/lanes_release). */
export function journalLockKey(quotedSchema: string): string {
  return `lanes:journal:${quotedSchema}`;
}
