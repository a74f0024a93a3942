import { basename, dirname, join } from 'node:path';
import { matchesStrip, renderTemplate } from '../../core/config.js';
import type { LanesConfig } from '../../core/config.js';
import type { RepoConfigFile } from '../config.js';
import { requireAllowed } from '../trust/gate.js';
import { slugify } from '../../core/slug.js';
import type { SessionRecord } from '../../store/types.js';
import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import type { HandoffService } from '../handoffs/handoffs.js';
import { leasePort, portsOf } from './ports.js';
import { ensurePrivateDir } from '../../core/private-dir.js';
import type { StateService } from '../state/state.js';
import type { SeatsApi } from '../seats/facade.js';

export interface SessionEnvironment {
  /** Variables lanes sets for the session. */
  vars: Record<string, string>;
  /** Names of inherited variables that `lanes exec` removes ([env] strip). */
  stripped: string[];
}

/**
 * The session's environment: identity, private runtime and temp directories, a leased port per
 * configured name, the templated per-session names, and which inherited variables are stripped.
 */
export async function sessionEnvironment(
  ctx: LanesContext,
  deps: { claims: ClaimService; state: StateService; handoffs: HandoffService; seats?: SeatsApi },
  session: SessionRecord,
  config: LanesConfig & { repoFile?: RepoConfigFile | null },
  inherited: Record<string, string | undefined>,
  /** false: no port is leased now, only the ports the session had (its teardown, after its end). */
  leaseNew = true,
): Promise<SessionEnvironment> {
  // A repository's [env] sets nothing the user has not allowed (services/trust/gate.ts).
  await requireAllowed(ctx, { repoFile: config.repoFile ?? null }, ['env'], "the session's environment");
  const runtime = deps.handoffs.dir(session.id);
  const tmp = ensurePrivateDir(join(runtime, 'tmp'));
  const vars: Record<string, string> = {
    LANES_SESSION: session.id,
    LANES_WORKTREE: session.worktree ?? '',
    LANES_RUNTIME_DIR: runtime,
    TMPDIR: tmp,
  };
  const had = leaseNew ? {} : portsOf(await deps.state.get(session.id).catch(() => undefined));
  for (const name of config.ports.names) {
    const port = leaseNew ? await leasePort(ctx, deps.claims, deps.state, session, name, config) : had[name];
    if (port !== undefined) vars[`PORT_${name.toUpperCase()}`] = String(port);
  }
  const repoName = session.repo
    ? basename(basename(session.repo) === '.git' ? dirname(session.repo) : session.repo.replace(/\.git$/, ''))
    : basename(session.cwd);
  // The slug of its templated names: unique among sessions whose teardown is due (a successor on
  // the same ticket never gets its predecessor's database), given once and kept.
  const wantsSlug = Object.keys(config.env.templates).length > 0 || config.session.setup !== null;
  const slug =
    session.envSlug ??
    (wantsSlug && leaseNew ? await ctx.store.allocateEnvSlug(session.id, envSlugBase(session)) : envSlugBase(session));
  const values = {
    repo: slugify(repoName, 'repo'),
    slug,
    session: session.id,
    ticket: session.ticket,
  };
  for (const [name, template] of Object.entries(config.env.templates))
    vars[name] = renderTemplate(name, template, values);
  // On a seat (services/seats/): its login selected, and no billed-per-call variable it did not name.
  const seat = deps.seats ? await deps.seats.environment(session.id, inherited) : null;
  Object.assign(vars, seat?.set ?? {});
  const stripped = Object.keys(inherited).filter(
    (k) =>
      inherited[k] !== undefined &&
      (matchesStrip(k, config.env.strip) || seat?.strip.includes(k) === true) &&
      !(k in vars),
  );
  return { vars, stripped };
}

/** The slug a session's templated names start from: its ticket, label, worktree's name or id. */
export function envSlugBase(session: SessionRecord): string {
  return slugify(session.ticket ?? session.label ?? (session.worktree ? basename(session.worktree) : session.id));
}
