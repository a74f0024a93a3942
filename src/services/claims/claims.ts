import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { ignoresCase } from '../../git/ignore-case.js';
import { assertSessionId } from '../../core/ids.js';
import { formatResource, parseResource, resourcesConflict } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import type { ClaimRecord, ClaimResult, Grant, SessionRecord } from '../../store/types.js';
import type { RepoInfo } from '../../git/repo.js';
import { unknownSession } from '../context.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';
import { ClaimWaiter } from './claim-wait.js';
import { reasonAt, refusalReason, refuse } from './claim-refusal.js';
import { asHeld } from './held-spelling.js';
import { waitFor } from '../wait.js';
import type { WaitOptions } from '../wait.js';

export interface ClaimOptions extends WaitOptions {
  /** Wait for held resources instead of failing with E_CLAIM_HELD. */
  wait?: boolean;
  /** `repo`: machine-scoped kinds become repository-scoped. */
  scope?: 'repo';
  session?: string;
}

export interface ClaimHolder {
  claim: ClaimRecord;
  session: SessionRecord | null;
  state: 'live' | 'dead' | 'ended';
  why: string;
}

const REPO_KINDS = /^(ticket|path|branch):/;

function needsRepo(texts: string[], scope?: 'repo'): boolean {
  return scope === 'repo' || texts.some((t) => REPO_KINDS.test(t));
}

/**
 * `path:src/billing` naming an existing directory claims the directory (as `path:src/billing/`):
 * nobody means "the directory entry but not its files", and the agents' edit hooks must see the
 * files inside as claimed.
 */
function directoryAware(text: string, cwd: string): string {
  // `path:` alone is left to the parser, which says its name is empty (not "path:/", outside the repository).
  if (!text.startsWith('path:') || text.endsWith('/') || text === 'path:') return text;
  try {
    return statSync(resolve(cwd, text.slice(5))).isDirectory() ? `${text}/` : text;
  } catch {
    return text;
  }
}

/** Whether `refs` names `r` already. */
function named(refs: ResourceRef[], r: ResourceRef): boolean {
  for (const u of refs) if (u.scope === r.scope && u.kind === r.kind && u.name === r.name) return true;
  return false;
}

export class ClaimService {
  constructor(private readonly ctx: LanesContext) {}

  async parse(texts: string[], scope?: 'repo'): Promise<ResourceRef[]> {
    const repo = texts.length > 0 && needsRepo(texts, scope) ? await this.ctx.repo() : null;
    return this.parseIn(texts, scope, repo);
  }

  /** parse() with the repository read (or not needed): nothing to wait for. */
  private parseIn(texts: string[], scope: 'repo' | undefined, repo: RepoInfo | null): ResourceRef[] {
    if (texts.length === 0)
      throw new LanesError('E_USAGE', 'name at least one resource', {
        hint: 'e.g. lanes claim ticket:SEAT-42 path:src/billing/',
      });
    const where = {
      cwd: this.ctx.cwd,
      worktreeRoot: repo?.worktreeRoot ?? null,
      repoId: repo ? this.ctx.repoId(repo) : null,
      host: this.ctx.host,
      forceRepoScope: scope === 'repo',
      ignoreCase: repo ? ignoresCase(repo.commonDir) : false,
    };
    // Each resource once, in the order named (a loop, no closures: every claim and release runs it).
    const unique: ResourceRef[] = [];
    for (const t of texts) {
      const r = parseResource(directoryAware(t, this.ctx.cwd), where);
      if (!named(unique, r)) unique.push(r);
    }
    return unique;
  }

  /** The resources of a claim or release: parsed at once when none needs the repository (a lock:, a port:). */
  private refsOf(texts: string[], scope?: 'repo'): ResourceRef[] | Promise<ResourceRef[]> {
    return needsRepo(texts, scope) ? this.parse(texts, scope) : this.parseIn(texts, scope, null);
  }

  /** Claims all resources or none. Each grant carries a fencing token. */
  async claim(texts: string[], options: ClaimOptions = {}): Promise<Grant[]> {
    const id = this.ctx.sessionIdFor(options.session);
    const parsed = this.refsOf(texts, options.scope);
    const refs = Array.isArray(parsed) ? parsed : await parsed;
    // The first attempt before any of the waiting's machinery: most claims are granted at once, and
    // a short process pays for every function it runs (bench/claims, PostgreSQL, cold clients).
    const first = options.signal?.aborted ? null : await this.attempt(id, refs, options);
    if (first?.ok) return this.granted(id, refs, first.grants);
    const what = refs.map(formatResource).join(', ');
    const waiter = options.wait ? new ClaimWaiter(this.ctx, id, refs) : null;
    try {
      return await this.attempts(id, refs, texts, what, waiter, options, first);
    } finally {
      await waiter?.end();
    }
  }

  /** One claim attempt: the store checks the claimant in the claim's own step (one round trip on a team store). */
  private attempt(id: string, refs: ResourceRef[], options: ClaimOptions): Promise<ClaimResult> {
    return this.ctx.store.acquireClaims(id, refs, this.ctx.judge).catch(async (e: unknown) => {
      // Its refusal of the claimant is then told as every command tells it.
      const code = (e as { code?: unknown }).code;
      if (code === 'E_UNKNOWN_SESSION' || code === 'E_SESSION_ENDED') await this.ctx.requireSession(options.session);
      throw e;
    });
  }

  /** A session without a ticket takes the first ticket it claims: `lanes ls` and the agents' deny messages then name the work. */
  private async granted(id: string, refs: ResourceRef[], grants: Grant[]): Promise<Grant[]> {
    const ticket = refs.find((r) => r.kind === 'ticket');
    if (ticket && (await this.ctx.store.getSession(id))?.ticket === null)
      await this.ctx.store.updateSession(id, { ticket: ticket.name });
    return grants;
  }

  private attempts(
    id: string,
    refs: ResourceRef[],
    texts: string[],
    what: string,
    waiter: ClaimWaiter | null,
    options: ClaimOptions,
    first: ClaimResult | null,
  ): Promise<Grant[]> {
    let answered = first;
    return waitFor(
      what,
      async () => {
        const result = answered ?? (await this.attempt(id, refs, options));
        answered = null;
        if (result.ok) return { done: true, value: await this.granted(id, refs, result.grants) };
        if (!waiter) return refuse(this.ctx, id, refs, texts, result, await refusalReason(this.ctx, result));
        const now = result.now ?? (await this.ctx.store.now());
        await waiter.refused();
        // Told only in a notice or at a timeout: most waits end first (bench/claims: 1 refusal in 8 cycles).
        return { done: false, blockedBy: () => reasonAt(result, now) };
      },
      this.ctx.notice,
      options,
    );
  }

  async release(
    texts: string[],
    options: { session?: string } = {},
  ): Promise<{ released: ClaimRecord[]; notHeld: ResourceRef[] }> {
    const id = this.ctx.sessionIdFor(options.session);
    const parsed = this.refsOf(texts);
    const refs = Array.isArray(parsed) ? parsed : await parsed;
    const held = refs.some((r) => r.fold) ? await asHeld(this.ctx.store, id, refs) : refs;
    const result = await this.ctx.store.releaseClaims(id, held);
    // Released everything: the session holds claims, so it is known and open (an ended session
    // holds none). Otherwise an unknown or ended session is refused as before.
    if (result.notHeld.length > 0) await this.ctx.requireSession(options.session);
    return result;
  }

  /**
   * Releases every claim of a session that is dead or ended (the dashboard's "release a dead
   * session's claims"); a live session's claims are its own: E_CLAIM_HELD (exit 3).
   */
  async releaseDead(id: string): Promise<ClaimRecord[]> {
    const session = await this.ctx.store.getSession(assertSessionId(id));
    if (!session) throw unknownSession(id, this.ctx.store.info.location);
    if ((await this.ctx.stateOf(session)).state === 'live')
      throw new LanesError('E_CLAIM_HELD', `${describeSession(session)} is live; its claims are its own`, {
        hint: 'ask it to release them (`lanes release RESOURCE`), or end it first when it is gone',
      });
    const held = await this.ctx.store.listClaims({ sessionId: session.id });
    if (held.length === 0) return [];
    // Only as it was judged: a session re-attached meanwhile (a new owner, or seen since) is live.
    const r = await this.ctx.store.releaseClaims(session.id, held, {
      lastSeenAt: session.lastSeenAt,
      owner: session.owner,
    });
    if (r.changed) throw changedSince(session.id, 'released');
    return r.released;
  }

  /** Claims of this repository and this host (all: every claim in the store), with their holders' state. */
  async list(options: { all?: boolean } = {}): Promise<ClaimHolder[]> {
    let scopes: string[] | undefined;
    if (!options.all) {
      const repo = await this.ctx.repo();
      scopes = [`host:${this.ctx.host}`, ...(repo ? [`repo:${this.ctx.repoId(repo)}`] : [])];
    }
    const claims = await this.ctx.store.listClaims(scopes ? { scopes } : {});
    return this.withHolders(claims);
  }

  /** Who holds this resource, or anything overlapping it. */
  async check(text: string, options: { scope?: 'repo' } = {}): Promise<{ ref: ResourceRef; holders: ClaimHolder[] }> {
    const [ref] = await this.parse([text], options.scope);
    if (!ref) throw new LanesError('E_USAGE', 'name a resource to check');
    return { ref, holders: await this.withHolders(await this.ctx.store.conflictingClaims([ref])) };
  }

  /**
   * Live claims of OTHER sessions that overlap these paths (files or directories, relative to cwd).
   * Used before writing: a path claimed by someone else alive must not be committed over.
   */
  async othersHoldingPaths(paths: string[]): Promise<ClaimHolder[]> {
    const repo = await this.ctx.repo();
    if (!repo) return [];
    const scope = `repo:${this.ctx.repoId(repo)}`;
    const refs = paths.map((p) => {
      try {
        return parseResource(`path:${p}`, {
          cwd: this.ctx.cwd,
          worktreeRoot: repo.worktreeRoot,
          repoId: this.ctx.repoId(repo),
          host: this.ctx.host,
          ignoreCase: ignoresCase(repo.commonDir),
        });
      } catch {
        return null; // the whole repository (or a path git will refuse anyway): overlaps every claim
      }
    });
    const named = refs.filter((r): r is ResourceRef => r !== null);
    // The claims on these paths, above and below them (an index read); every path claim of the
    // repository only when a path names the whole of it.
    const found =
      named.length === refs.length
        ? await this.ctx.store.conflictingClaims(named)
        : (await this.ctx.store.listClaims({ scopes: [scope] })).filter((c) => c.kind === 'path');
    const hit = found.filter(
      (c) =>
        c.kind === 'path' &&
        c.sessionId !== this.ctx.sessionId &&
        refs.some((r) => r === null || resourcesConflict(r, c)),
    );
    if (hit.length === 0) return [];
    return (await this.withHolders(hit)).filter((h) => h.state === 'live');
  }

  holders(claims: ClaimRecord[]): Promise<ClaimHolder[]> {
    return this.withHolders(claims);
  }

  private async withHolders(claims: ClaimRecord[]): Promise<ClaimHolder[]> {
    const sessions = new Map<string, SessionRecord | null>();
    for (const c of claims)
      if (!sessions.has(c.sessionId)) sessions.set(c.sessionId, await this.ctx.store.getSession(c.sessionId));
    const liveness = await this.ctx.statesOf([...sessions.values()].filter((s): s is SessionRecord => s !== null));
    return claims.map((claim) => {
      const session = sessions.get(claim.sessionId) ?? null;
      const l = session ? liveness.get(session.id) : undefined;
      if (!session || !l) return { claim, session, state: 'dead' as const, why: 'session no longer in the store' };
      return { claim, session, state: l.state, why: l.verdict.why };
    });
  }

  /**
   * For publishers (state writes under a claim, land): passes only while `token` is the current
   * grant of the resource. A holder whose claim was released or taken over gets E_FENCED (exit 4).
   */
  async assertFenced(resource: string | ResourceRef, token: number): Promise<void> {
    const [ref] = typeof resource === 'string' ? await this.parse([resource]) : [resource];
    if (!ref) throw new LanesError('E_USAGE', 'name a resource');
    const current = (await this.ctx.store.conflictingClaims([ref])).find(
      (c) => c.kind === ref.kind && c.name === ref.name,
    );
    if (current && current.token === token) return;
    const name = formatResource(ref);
    const now = current
      ? `now held by session ${current.sessionId} with token ${current.token}`
      : 'no longer held by anyone';
    throw new LanesError('E_FENCED', `fencing token ${token} for ${name} is stale: the claim is ${now}`, {
      hint: `this holder lost ${name}; do not publish. Claim it again (\`lanes claim ${name}\`) and redo the work on top of the current holder's`,
      details: { resource: name, token, current: current?.token ?? null, holder: current?.sessionId ?? null },
    });
  }
}

/** A dead session came back between the judgement and the act: nothing was done to it. */
function changedSince(id: string, what: string): LanesError {
  return new LanesError('E_CLAIM_HELD', `session ${id} came back (re-attached or seen) since it was judged dead`, {
    hint: `nothing was ${what}; look again (lanes ls) before acting on it`,
  });
}
