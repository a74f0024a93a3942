import type { SessionRecord } from '../../store/types.js';
import type { HookContext } from './context.js';
import { touchedOfSessions } from './touched.js';

/** What the model is told at session start: who else works in this repository, and the rules. */
export async function briefing(ctx: HookContext, me: SessionRecord): Promise<string> {
  const lines = [`lanes: you are session ${me.id}${me.worktree ? ` in worktree ${me.worktree}` : ''}.`];
  const others = await ctx.liveSessions((s) => s.id !== me.id && me.repo !== null && s.repo === me.repo);
  if (others.length === 0) {
    lines.push('No other live session works in this repository right now.');
  } else {
    // The live sessions' own claims in one read (indexed by session): never every claim of the repository.
    const claims = await ctx.claimsOf(others.map((s) => s.id));
    lines.push(`Other live sessions in this repository (${others.length}):`);
    const touchedBy = await touchedOfSessions(
      ctx,
      others.map((s) => s.id),
    );
    for (const s of others) {
      const held = claims
        .filter((c) => c.sessionId === s.id && c.scope === `repo:${me.repo}`)
        .map((c) => `${c.kind}:${c.name}`);
      const touched = touchedBy.get(s.id) ?? [];
      const where =
        s.worktree === me.worktree && s.owner.host === me.owner.host
          ? 'SAME worktree as you'
          : `worktree ${s.worktree ?? s.cwd}`;
      lines.push(
        `- ${s.id}${s.ticket ? ` (ticket ${s.ticket})` : ''}, ${where}; claims: ${held.length ? held.slice(0, 20).join(', ') + (held.length > 20 ? ` and ${held.length - 20} more` : '') : 'none'}${touched.length ? `; edited: ${touched.slice(0, 20).join(', ')}${touched.length > 20 ? ` and ${touched.length - 20} more` : ''}` : ''}`,
      );
    }
  }
  lines.push(
    'Rules of this repository (lanes):',
    '- Claim what you work on before editing: `lanes claim ticket:ID path:DIR/` (edits to paths another live session claimed are refused).',
    '- Commit only your own files: `lanes commit -m "MESSAGE" -- PATH…` (plain git add/commit/stash/reset are refused while another session shares your worktree).',
    '- `lanes claims` shows who holds what; `lanes conflicts` predicts overlaps with other sessions.',
  );
  return lines.join('\n');
}
