import { hookSessionId } from '../../core/hook-event.js';
import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { JournalInput } from '../../store/journal-types.js';
import type { ConflictReport } from '../conflicts/conflicts.js';
import type { DoctorReport } from '../doctor/doctor.js';
import type { Snapshot, SnapshotResult } from '../snapshots/snapshots.js';
import type { SweepReport } from '../snapshots/sweep.js';

// The journal entries of decisions services make outside the store, built from what each
// operation returns (lanes.ts records them right after the operation succeeds).

type Who = { session: string | null; repo: string | null; ticket: string | null };

export function snapshotEntry(who: Who, r: SnapshotResult, why: string): JournalInput | null {
  if (!r.created || !r.snapshot) return null;
  return {
    ...who,
    session: r.snapshot.owner,
    kind: 'snapshot',
    subject: r.snapshot.ref,
    details: { commit: r.snapshot.commit, files: r.files, why, skipped: r.skipped },
  };
}

export function restoreEntry(who: Who, snapshot: Snapshot, path: string, branch: string | null): JournalInput {
  return { ...who, kind: 'restore', subject: snapshot.ref, details: { owner: snapshot.owner, into: path, branch } };
}

export function sweepEntries(who: Who, r: SweepReport): JournalInput[] {
  if (r.dryRun) return [];
  return r.flags.map((f) => ({
    ...who,
    ticket: f.ticket,
    kind: 'sweep.flag' as const,
    subject: `ticket:${f.ticket}`,
    details: { flag: f.kind, worktrees: f.worktrees, message: f.message },
  }));
}

export function conflictsEntry(who: Who, r: ConflictReport): JournalInput | null {
  if (!r.found) return null;
  return {
    ...who,
    kind: 'conflicts.found',
    subject: r.target,
    details: {
      pairs: r.pairs.map((p) => ({ a: p.a, b: p.b, both: p.both.slice(0, 50), conflicts: p.conflicts.slice(0, 50) })),
      sameTicket: r.sameTicket,
      competing: r.competing.map((c) => ({ session: c.session, files: c.files.slice(0, 50) })),
    },
  };
}

export function adoptEntry(who: Who, adopted: string, worktree: string | null, tokens: number[]): JournalInput {
  return { ...who, kind: 'adopt', subject: adopted, details: { worktree, tokens } };
}

export function doctorEntries(who: Who, r: DoctorReport): JournalInput[] {
  return r.findings
    .filter((f) => f.fixed)
    .map((f) => ({
      ...who,
      session: f.session ?? who.session,
      kind: 'doctor.fix' as const,
      subject: f.session ?? f.worktree ?? f.kind,
      details: { finding: f.kind, message: f.message, fixed: f.fixed, worktree: f.worktree ?? null },
    }));
}

/** A hook's deny, or its early-conflict warning (the session-start briefing is not a decision). */
export function hookEntry(event: HookEvent, d: HookDecision): JournalInput | null {
  const warned =
    d.permission === 'allow' && d.context !== null && event.kind !== 'session-start' && (d.holders?.length ?? 0) > 0;
  if (d.permission !== 'deny' && !warned) return null;
  let session: string | null = null;
  try {
    session = hookSessionId(event);
  } catch {
    // an agent id lanes refuses: the decision is still recorded, without a session
  }
  return {
    kind: d.permission === 'deny' ? 'hook.deny' : 'hook.warn',
    subject: event.paths[0] ?? event.command ?? event.kind,
    session,
    details: {
      agent: event.agent,
      event: event.kind,
      paths: event.paths.slice(0, 50),
      command: event.command,
      holders: d.holders ?? [],
      notice: d.notice,
      // The reason the model was given (the report and the page show why it was denied).
      reason: d.reason ? d.reason.slice(0, 1000) : null,
    },
  };
}
