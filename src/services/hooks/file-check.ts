import { homeDir } from '../../core/builtins.js';
import { join } from 'node:path';
import { ALLOW } from '../../core/hook-event.js';
import type { HookDecision } from '../../core/hook-event.js';
import { pathsOverlap } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import type { SessionRecord } from '../../store/types.js';
import type { HookContext } from './context.js';
import { touchedOfSessions } from './touched.js';

// Fixed paths outside the repository are nobody's (the first incident's next surfaces): the global
// CLI configs and credentials every session's tools read and rewrite (~/.gitconfig, ~/.npmrc,
// ~/.config/gh/hosts.yml, …). A machine-scoped `file:` claim on an absolute path makes it one
// session's: other agents' edits of it are refused. A file on the shared list ([shared] files in
// the user config, or the defaults) may be edited by an agent only under such a claim.

/** `~/…` against the home directory; absolute paths as they are. */
export function expandHome(entry: string, home: string = homeDir()): string {
  if (entry !== '~' && !entry.startsWith('~/')) return entry;
  const path = join(home, entry.slice(1));
  // A trailing `/` marks a directory (covering its files), whatever join made of it.
  return entry.endsWith('/') && !path.endsWith('/') ? `${path}/` : path;
}

/** The `file:` resource of an absolute path on this machine. */
export function fileRef(path: string, host: string): ResourceRef {
  return { kind: 'file', name: path.normalize('NFC'), scope: `host:${host}` };
}

/**
 * The edit check of paths outside every repository: a live other session's `file:` claim denies
 * it; a file on the shared list needs this session's own claim first. null: nothing to say.
 */
export async function checkOutsideEdit(
  ctx: HookContext,
  self: string,
  paths: string[],
  others: Map<string, SessionRecord>,
  shared: string[],
): Promise<HookDecision | null> {
  const refs = paths.map((p) => fileRef(p, ctx.host));
  const claims = (await ctx.conflictingClaims(refs)).filter((c) => c.kind === 'file');
  const theirs = claims.find((c) => c.sessionId !== self && others.has(c.sessionId));
  if (theirs) {
    const s = others.get(theirs.sessionId);
    const file = refs.find((r) => pathsOverlap(r.name, theirs.name))?.name ?? theirs.name;
    return deny(
      `lanes: ${file} is claimed by session ${theirs.sessionId}${s?.label ? ` (${s.label})` : ''} (claim file:${theirs.name}), pid ${s?.owner.pid ?? '?'} on ${ctx.host}. Do not edit it: it is a file of this machine that session owns now; wait for it with \`lanes claim file:${theirs.name} --wait\`, or ask the person running that session.`,
      `denied edit of ${file}: claimed by ${theirs.sessionId}`,
      [theirs.sessionId],
      [`file:${theirs.name}`],
    );
  }
  const mine = claims.filter((c) => c.sessionId === self);
  const unclaimed = refs
    .map((r) => r.name)
    .filter(
      (name) => shared.some((entry) => pathsOverlap(entry, name)) && !mine.some((c) => pathsOverlap(c.name, name)),
    );
  if (unclaimed.length === 0) return null;
  const first = unclaimed[0]!;
  return deny(
    `lanes: ${unclaimed.join(', ')} ${unclaimed.length === 1 ? 'is a file' : 'are files'} every session of this machine shares (its tools read it; another session may be rewriting it now). Claim it first, then edit: \`lanes claim file:${first}\` (other sessions' edits of it are refused until you release it with \`lanes release file:${first}\`).`,
    `denied edit of shared ${unclaimed.join(', ')}: not claimed`,
    [],
    unclaimed.map((name) => `file:${name}`),
  );
}

function deny(reason: string, notice: string, holders: string[], lifts: string[]): HookDecision {
  return { permission: 'deny', reason, context: null, notice, holders, lifts };
}

/**
 * The early-conflict warning for files outside every repository: another live session's agent
 * edited the same file (recorded by its after-edit hook, by absolute path).
 */
export async function outsideWarning(
  ctx: HookContext,
  paths: string[],
  others: Map<string, SessionRecord>,
): Promise<HookDecision> {
  const touchedBy = await touchedOfSessions(ctx, [...others.keys()]);
  const warnings: string[] = [];
  const holders: string[] = [];
  for (const [id, touched] of touchedBy) {
    const hits = paths.filter((p) => touched.includes(p.normalize('NFC')));
    if (hits.length === 0) continue;
    warnings.push(
      `${hits.join(', ')} also edited by session ${id}${others.get(id)?.label ? ` (${others.get(id)?.label})` : ''}`,
    );
    holders.push(id);
  }
  if (warnings.length === 0) return ALLOW;
  return {
    ...ALLOW,
    context: `lanes early conflict warning: ${warnings.join('; ')}. It is a file of this machine, outside any repository: coordinate with that session, or claim it first (\`lanes claim file:${paths[0]}\`).`,
    notice: `warning: ${warnings.join('; ')}`,
    holders,
  };
}
