// bench/ui-churn: a busy fleet's writes, through the store API, for bench/ui-idle.mjs --busy: the
// live sessions' heartbeats (round-robin, `beats` a second: each agent's lanes calls refresh its
// lease at most every 5 s) and claim grants and releases (`claims` a second, each two journal
// entries). Runs `seconds`, then prints what it wrote.
//   node --import tsx bench/ui-churn.ts STORE '{"sessions":["…"],"beats":20,"claims":2,"seconds":20}'
import { openStore } from '../src/store/open.js';
import type { OwnerJudge } from '../src/store/types.js';

const [location, specText] = process.argv.slice(2);
if (!location || !specText) throw new Error('usage: ui-churn.ts STORE SPEC_JSON');
const spec = JSON.parse(specText) as { sessions: string[]; beats: number; claims: number; seconds: number };
const store = await openStore(location);
console.log('go');
const judge: OwnerJudge = (owners) => owners.map(() => ({ live: true, why: '' }));
const repo = 'repo:/bench/.git';
const end = Date.now() + spec.seconds * 1000;
let beats = 0;
let claims = 0;
const every = (perSecond: number, fn: () => Promise<unknown>) =>
  perSecond > 0
    ? (async () => {
        for (let next = Date.now(); Date.now() < end;) {
          await fn();
          next += 1000 / perSecond;
          await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
        }
      })()
    : Promise.resolve();
await Promise.all([
  every(spec.beats, async () => {
    await store.touchSession(spec.sessions[beats++ % spec.sessions.length]!);
  }),
  every(spec.claims, async () => {
    const who = spec.sessions[claims % spec.sessions.length]!;
    const ref = { scope: repo, kind: 'path', name: `churn/${claims++}.ts` };
    await store.acquireClaims(who, [ref], judge);
    await store.releaseClaims(who, [ref]);
  }),
]);
await store.close();
console.log(JSON.stringify({ beats, claims }));
