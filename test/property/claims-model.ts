// The reference model of claims, and the commands a model-based run draws from. The model is
// written from the rules (README "Concepts"), not from the store: all-or-nothing claims; a live
// session's claim blocks any overlapping one of another session; a dead or ended holder's
// overlapping claims are taken over (deleted) by the next successful claim; every grant of a
// resource gets the next token of that exact resource, forever increasing; ending releases all;
// only sessions not ended may claim, release or adopt; adopt takes a dead or ended session's
// claims and ticket. "Kill owner" re-attaches a session to a process that has exited.
import assert from 'node:assert/strict';
import type fc from 'fast-check';
import type { Lanes } from '../../src/index.js';
import type { OwnerIdentity } from '../../src/core/process-identity.js';
import type { Store } from '../../src/store/types.js';
import { expectedOverlap } from './resource-model.js';

export const RESOURCES = [
  'ticket:A',
  'ticket:B',
  'path:a/',
  'path:a/x',
  'path:a/y/',
  'path:a/y/z',
  'path:b',
  'lock:L',
] as const;
export const MAX_SESSIONS = 4;

type State = 'live' | 'dead' | 'ended';
interface Held {
  session: number;
  token: number;
}
export interface Model {
  sessions: { state: State; ticket: string | null }[];
  /** Current claims by resource text (each kind has one scope here, so the text is the key). */
  claims: Map<string, Held>;
  lastToken: Map<string, number>;
}

export interface Real {
  /** The library in the repository: claims, releases, lists and ends go through it. */
  lib: Lanes;
  /** The library outside any repository: sessions start there without a worktree (no git on end). */
  starter: Lanes;
  store: Store;
  ids: string[];
  /** A library object acting as each session, opened on first use (adopt acts as the caller). */
  as(id: string): Promise<Lanes>;
  deadOwner: OwnerIdentity;
  commands: { count: number };
  /** Runs share one store: each names its resources apart (`ticket:A` -> `ticket:A-r7`). */
  real(resource: string): string;
  /** The model's name of a resource the store returned. */
  model(resource: string): string;
}

export const emptyModel = (): Model => ({ sessions: [], claims: new Map(), lastToken: new Map() });

function conflict(a: string, b: string): boolean {
  const [ka, na] = [a.slice(0, a.indexOf(':')), a.slice(a.indexOf(':') + 1)];
  const [kb, nb] = [b.slice(0, b.indexOf(':')), b.slice(b.indexOf(':') + 1)];
  if (ka !== kb) return false;
  return ka === 'path' ? expectedOverlap(na, nb) : na === nb;
}

/** The model's answer to a claim: refused by live blockers, or granted with takeovers. */
function modelClaim(m: Model, s: number, wanted: string[]): { ok: false } | { ok: true; grants: Grant[] } {
  const others = [...m.claims].filter(([, h]) => h.session !== s);
  const hits = others.filter(([r]) => wanted.some((w) => conflict(w, r)));
  if (hits.some(([, h]) => m.sessions[h.session]?.state === 'live')) return { ok: false };
  for (const [r] of hits) m.claims.delete(r);
  const grants = wanted.map((w) => {
    const token = (m.lastToken.get(w) ?? 0) + 1;
    m.lastToken.set(w, token);
    m.claims.set(w, { session: s, token });
    // Several dead holders may overlap one wanted path: the grant names one of them.
    const from = hits.filter(([r]) => conflict(w, r)).map(([, h]) => h.session);
    return { resource: w, token, takenOverFrom: [...new Set(from)] };
  });
  const ticket = wanted.find((w) => w.startsWith('ticket:'));
  const me = m.sessions[s];
  if (me && ticket && me.ticket === null) me.ticket = ticket.slice('ticket:'.length);
  return { ok: true, grants };
}
interface Grant {
  resource: string;
  token: number;
  takenOverFrom: number[];
}

async function outcome<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; code: string }> {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    return { ok: false, code: (e as { code?: string }).code ?? String(e) };
  }
}

/** After every command: the store holds exactly the model's claims, tokens and session states. */
async function sameAsModel(m: Model, r: Real): Promise<void> {
  const claims = await r.lib.claims.list({ all: true });
  const got = claims
    .filter((c) => r.ids.includes(c.claim.sessionId))
    .map((c) => [r.model(`${c.claim.kind}:${c.claim.name}`), r.ids.indexOf(c.claim.sessionId), c.claim.token]);
  const want = [...m.claims].map(([res, h]) => [res, h.session, h.token]);
  const order = (a: (string | number)[], b: (string | number)[]) => String(a[0]).localeCompare(String(b[0]));
  assert.deepEqual(got.sort(order), want.sort(order), 'claims in the store vs the model');
  for (const [i, id] of r.ids.entries()) {
    const view = await r.lib.sessions.get(id);
    assert.equal(view.state, m.sessions[i]?.state, `state of session ${i}`);
    const ticket = view.ticket === null ? null : r.model(`ticket:${view.ticket}`).slice('ticket:'.length);
    assert.equal(ticket, m.sessions[i]?.ticket ?? null, `ticket of session ${i}`);
  }
  // The safety rule itself, read from the store alone: no two live holders of overlapping claims.
  const live = claims.filter((c) => c.state === 'live' && r.ids.includes(c.claim.sessionId));
  for (const a of live)
    for (const b of live)
      if (a !== b && a.claim.sessionId !== b.claim.sessionId)
        assert.ok(!conflict(`${a.claim.kind}:${a.claim.name}`, `${b.claim.kind}:${b.claim.name}`), 'two live holders');
}

type Cmd = fc.AsyncCommand<Model, Real>;
const pick = (m: Model, i: number) => i % m.sessions.length;

export class Start implements Cmd {
  check = (m: Readonly<Model>) => m.sessions.length < MAX_SESSIONS;
  async run(m: Model, r: Real) {
    r.commands.count++;
    r.ids.push((await r.starter.sessions.start({ pid: process.pid, label: `s${m.sessions.length}` })).id);
    m.sessions.push({ state: 'live', ticket: null });
    await sameAsModel(m, r);
  }
  toString = () => 'start';
}

export class Claim implements Cmd {
  constructor(
    readonly who: number,
    readonly wanted: string[],
  ) {}
  check = (m: Readonly<Model>) => m.sessions.length > 0;
  async run(m: Model, r: Real) {
    r.commands.count++;
    const s = pick(m, this.who);
    const wanted = [...new Set(this.wanted)];
    const got = await outcome(r.lib.claims.claim(this.wanted.map(r.real), { session: r.ids[s] ?? '' }));
    if (m.sessions[s]?.state === 'ended') assert.deepEqual(got, { ok: false, code: 'E_SESSION_ENDED' });
    else {
      const want = modelClaim(m, s, wanted);
      if (!want.ok) assert.deepEqual(got, { ok: false, code: 'E_CLAIM_HELD' });
      else {
        assert.ok(got.ok, `claim refused: ${JSON.stringify(got)}`);
        assert.deepEqual(
          got.value.map((g) => [r.model(`${g.ref.kind}:${g.ref.name}`), g.token]),
          want.grants.map((g) => [g.resource, g.token]),
        );
        for (const [i, g] of got.value.entries()) {
          const from = want.grants[i]?.takenOverFrom ?? [];
          const taken = g.takenOver ? r.ids.indexOf(g.takenOver.claim.sessionId) : null;
          assert.ok(taken === null ? from.length === 0 : from.includes(taken), `takeover of ${i}: ${taken} vs ${from}`);
        }
      }
    }
    await sameAsModel(m, r);
  }
  toString = () => `claim(s${this.who}, ${this.wanted.join(' ')})`;
}

export class Release implements Cmd {
  constructor(
    readonly who: number,
    readonly wanted: string[],
  ) {}
  check = (m: Readonly<Model>) => m.sessions.length > 0;
  async run(m: Model, r: Real) {
    r.commands.count++;
    const s = pick(m, this.who);
    const got = await outcome(r.lib.claims.release(this.wanted.map(r.real), { session: r.ids[s] ?? '' }));
    if (m.sessions[s]?.state === 'ended') assert.deepEqual(got, { ok: false, code: 'E_SESSION_ENDED' });
    else {
      assert.ok(got.ok, JSON.stringify(got));
      const mine = [...new Set(this.wanted)].filter((w) => m.claims.get(w)?.session === s);
      for (const w of mine) m.claims.delete(w);
      assert.deepEqual(got.value.released.map((c) => r.model(`${c.kind}:${c.name}`)).sort(), mine.sort());
    }
    await sameAsModel(m, r);
  }
  toString = () => `release(s${this.who}, ${this.wanted.join(' ')})`;
}

export class KillOwner implements Cmd {
  constructor(readonly who: number) {}
  check = (m: Readonly<Model>) => m.sessions.length > 0;
  async run(m: Model, r: Real) {
    const s = pick(m, this.who);
    const session = m.sessions[s];
    if (session?.state !== 'live') return; // re-attaching an ended session would reopen it
    r.commands.count++;
    const rec = await r.store.getSession(r.ids[s] ?? '');
    assert.ok(rec);
    await r.store.attachSession({ ...rec, owner: r.deadOwner });
    session.state = 'dead';
    await sameAsModel(m, r);
  }
  toString = () => `kill-owner(s${this.who})`;
}

export class Adopt implements Cmd {
  constructor(
    readonly who: number,
    readonly victim: number,
  ) {}
  check = (m: Readonly<Model>) => m.sessions.length > 1;
  async run(m: Model, r: Real) {
    const s = pick(m, this.who);
    const v = pick(m, this.victim);
    if (s === v) return;
    r.commands.count++;
    const got = await outcome((await r.as(r.ids[s] ?? '')).adopt(r.ids[v] ?? ''));
    const victim = m.sessions[v];
    if (m.sessions[s]?.state === 'ended') assert.deepEqual(got, { ok: false, code: 'E_SESSION_ENDED' });
    else if (victim?.state === 'live') assert.deepEqual(got, { ok: false, code: 'E_CLAIM_HELD' });
    else {
      const wanted = [...m.claims].filter(([, h]) => h.session === v).map(([res]) => res);
      if (victim?.ticket && !wanted.includes(`ticket:${victim.ticket}`)) wanted.push(`ticket:${victim.ticket}`);
      const want = wanted.length > 0 ? modelClaim(m, s, wanted) : { ok: true as const, grants: [] };
      if (!want.ok) assert.deepEqual(got, { ok: false, code: 'E_CLAIM_HELD' });
      else {
        assert.ok(got.ok, `adopt refused: ${JSON.stringify(got)}`);
        assert.deepEqual(
          got.value.grants.map((g) => [r.model(`${g.ref.kind}:${g.ref.name}`), g.token]).sort(),
          want.grants.map((g) => [g.resource, g.token]).sort(),
        );
        const me = m.sessions[s];
        if (me && victim?.ticket) me.ticket = victim.ticket;
      }
    }
    await sameAsModel(m, r);
  }
  toString = () => `adopt(s${this.who} takes s${this.victim})`;
}

export class End implements Cmd {
  constructor(readonly who: number) {}
  check = (m: Readonly<Model>) => m.sessions.length > 0;
  async run(m: Model, r: Real) {
    r.commands.count++;
    const s = pick(m, this.who);
    const mine = [...m.claims].filter(([, h]) => h.session === s).map(([res]) => res);
    const got = await r.lib.sessions.end(r.ids[s] ?? '');
    assert.equal(got.alreadyEnded, m.sessions[s]?.state === 'ended');
    assert.deepEqual(got.released.map((c) => r.model(`${c.kind}:${c.name}`)).sort(), mine.sort());
    for (const res of mine) m.claims.delete(res);
    const session = m.sessions[s];
    if (session) session.state = 'ended';
    await sameAsModel(m, r);
  }
  toString = () => `end(s${this.who})`;
}

/** A publisher's check: a token passes only while it is the current grant of that resource. */
export class Fence implements Cmd {
  constructor(
    readonly resource: string,
    readonly behind: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const last = m.lastToken.get(this.resource) ?? 0;
    if (last === 0) return;
    r.commands.count++;
    const token = Math.max(1, last - this.behind);
    const got = await outcome(r.lib.claims.assertFenced(r.real(this.resource), token));
    const current = m.claims.get(this.resource)?.token === token;
    assert.deepEqual(got, current ? { ok: true, value: undefined } : { ok: false, code: 'E_FENCED' });
  }
  toString = () => `fence(${this.resource}, last-${this.behind})`;
}
