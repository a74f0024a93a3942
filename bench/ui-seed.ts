// bench/ui-seed: adds `count` journal entries to a store through the store API, in batches (the
// journal a busy fleet leaves over days): claim grants and releases, hook denies, snapshots, spread
// over the given sessions. Run by bench/ui.mjs with tsx:
//   node --import tsx bench/ui-seed.ts STORE '{"count":100000,"sessions":["s-1",...],"repo":"/x/.git"}'
import { openStore } from '../src/store/open.js';
import type { JournalInput, JournalKind } from '../src/store/journal-types.js';

const [location, specText] = process.argv.slice(2);
if (!location || !specText) throw new Error('usage: ui-seed.ts STORE SPEC_JSON');
const spec = JSON.parse(specText) as { count: number; sessions: string[]; repo: string };
const store = await openStore(location);
const KINDS: JournalKind[] = ['claim.grant', 'claim.release', 'hook.deny', 'hook.warn', 'snapshot', 'commit'];
const BATCH = 2000;
for (let done = 0; done < spec.count; done += BATCH) {
  const batch: JournalInput[] = [];
  for (let i = done; i < Math.min(spec.count, done + BATCH); i++)
    batch.push({
      kind: KINDS[i % KINDS.length]!,
      subject: `path:pkg${i % 25}/f${i % 200}.ts`,
      session: spec.sessions[i % spec.sessions.length] ?? null,
      repo: spec.repo,
      ticket: `T-${i % 1000}`,
      details: { token: i, agent: 'claude-code', bench: true },
    });
  await store.appendJournal(batch);
}
console.log(JSON.stringify({ journal: await store.lastJournalSeq() }));
await store.close();
