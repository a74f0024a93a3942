/**
 * What `lanes doctor` can find, and how much each matters. An error is something wrong now (a dead
 * session holding claims, a worktree gone); a warning, a risk a person should look at (unsaved work,
 * a shared index, the guard missing); information is how things are after ordinary use (a kept
 * worktree of an ended session, its work saved) and never makes doctor fail.
 */
export type Severity = 'error' | 'warning' | 'info';

export type FindingKind =
  | 'dead-session'
  | 'dead-claim'
  | 'missing-worktree'
  | 'unsaved-worktree'
  | 'kept-worktree'
  | 'shared-worktree'
  | 'same-ticket'
  | 'joined-ticket'
  | 'guard-missing'
  | 'interrupted-land'
  | 'interrupted-commit'
  | 'orphaned-index-lock'
  | 'landing'
  | 'merged-branch'
  | 'kept-branch'
  | 'handoff-dir'
  | 'stale-worktree-lock'
  | 'teardown-due';

export const SEVERITY: Record<FindingKind, Severity> = {
  'dead-session': 'error',
  'dead-claim': 'error',
  'missing-worktree': 'error',
  'unsaved-worktree': 'warning',
  'shared-worktree': 'warning',
  'same-ticket': 'warning',
  'guard-missing': 'warning',
  'interrupted-land': 'error',
  'interrupted-commit': 'error',
  'orphaned-index-lock': 'error',
  landing: 'info',
  'merged-branch': 'warning',
  'kept-branch': 'info',
  'handoff-dir': 'warning',
  'stale-worktree-lock': 'warning',
  'teardown-due': 'warning',
  'kept-worktree': 'info',
  'joined-ticket': 'info',
};

export interface Finding {
  kind: FindingKind;
  severity: Severity;
  message: string;
  session?: string;
  worktree?: string;
  /** What --fix did about it. */
  fixed?: string;
  /** With --fix, for a finding it leaves: why it cannot settle it, and what a person does instead. */
  unfixable?: string;
}

export interface DoctorReport {
  findings: Finding[];
  fixed: boolean;
  /** Errors and warnings left unfixed: what makes `lanes doctor` exit 3 (information never does). */
  open: number;
}

export function finding(
  kind: FindingKind,
  message: string,
  where: { session?: string; worktree?: string } = {},
): Finding {
  return { kind, severity: SEVERITY[kind], message, ...where };
}

/** Errors and warnings neither fixed nor settled. */
export function openCount(findings: Finding[]): number {
  return findings.filter((f) => f.severity !== 'info' && !f.fixed).length;
}
