// The library entry. `openLanes()` returns the one object through which every behaviour is
// reached; the CLI, `lanes hook`, the demo (and the dashboard and MCP server to come) call it and
// nothing below it. Besides it: the store's administration and location (storeStatus, migrateStore,
// copyStore, resolveStore: they work on a store location, not a session), the repository lookup
// (findRepository), the .worktreeinclude copy, and the pure helpers and types of core.
export { openLanes } from './services/lanes.js';
export { nightReport } from './services/report/report.js';
export { auditRepository } from './services/audit/audit.js';
export type { AuditReport, CheckResult } from './services/audit/verdict.js';
export type { CheckId as AuditCheckId, Finding as AuditFinding } from './services/audit/checks/finding.js';
export { deliverNotifications, testNotifications } from './services/notify/worker.js';
export type { Delivery, NotifyChannel } from './services/notify/deliver.js';
export type { NotifyEvent } from './services/notify/events.js';
export { parseDuration as parseDurationText } from './core/duration.js';
export { named as sessionNamed } from './services/report/needs-you.js';
export type { NightReport, NeedsYou, ReportItem, SessionName, TicketReport } from './services/report/report.js';
export type { LanesOptions } from './services/lanes.js';
export type {
  Lanes,
  LanesClaims,
  LanesGuard,
  LanesJournal,
  LanesHandoffs,
  LanesPorts,
  LanesSessions,
  LanesSnapshots,
  LanesState,
  SweepOptions,
  WaitView,
} from './services/lanes-api.js';
export { CLEAR } from './services/state/state.js';
export type { Json, Mutator } from './services/state/state.js';
export type { AttachOptions, SessionRow, SessionView, StartOptions } from './services/sessions/sessions.js';
export type { Predecessor } from './services/sessions/predecessor.js';
export type { SessionDiff, SessionDiffFile, DiffStatus } from './services/worktrees/session-diff.js';
export type { Told } from './services/tell/facade.js';
export { describeLeft, leftWork } from './services/sessions/predecessor.js';
export type { ClaimHolder, ClaimOptions } from './services/claims/claims.js';
export type { WaitOptions } from './services/wait.js';
export type { EndOptions, EndResult } from './services/sessions/end-session.js';
export type { ActingSession } from './services/sessions/acting.js';
export type { CommitCheck } from './services/commits/commit-check.js';
export { SHARED_INDEX_OVERRIDE } from './services/commits/commit-check.js';
export type { SessionGlance } from './services/sessions/glance.js';
export type { HandoffWritten } from './services/handoffs/handoffs.js';
export { MAX_HANDOFF_BYTES } from './services/handoffs/handoffs.js';
export type { Snapshot, SnapshotResult } from './services/snapshots/snapshots.js';
export { describeSnapshot, notSaved } from './services/snapshots/snapshots.js';
export type { SkippedPath } from './git/nested-repos.js';
export type { PortLease } from './services/runtime/ports.js';
export type { SessionProgress } from './services/worktrees/progress.js';
export type { SessionEnvironment } from './services/runtime/runtime-env.js';
export type { ConflictReport, FileStat, PairFinding } from './services/conflicts/conflicts.js';
export type { SweepFlag, SweepItem, SweepReport } from './services/snapshots/sweep.js';
export type { LandMode, LandResult } from './services/land/land.js';
export type {
  LanesQueue,
  PushResult,
  QueueEntry,
  QueueOutcome,
  QueueRun,
  QueueStop,
  ReadyResult,
  RemoteLease,
} from './services/land/queue-facade.js';
export type { ChecksState, LanesPullRequests, PrResult, PrState, PullRequest } from './services/land/pr-facade.js';
export type { BudgetView } from './services/spend/budget-facade.js';
export type { SessionSpend, Spend } from './services/spend/spend.js';
export type { DoctorReport, Finding, FindingKind } from './services/doctor/doctor.js';
export type { GcItem, GcOptions, GcReport } from './services/doctor/gc.js';
export type {
  WorktreeGcItem,
  WorktreeGcOptions,
  WorktreeGcReport,
  WorktreeOutcome,
} from './services/worktrees/gc-worktrees.js';
export type { WorktreesApi } from './services/worktrees/facade.js';
export type { SeatsApi } from './services/seats/facade.js';
export type { TrustApi, TrustTarget } from './services/trust/trust.js';
export type { TrustRecord, TrustState } from './services/trust/approvals.js';
export type { Runnable } from './core/config-trust.js';
export type { SeatHolder, SeatLease, SeatView } from './services/seats/seats.js';
export type { SeatRecord } from './store/seat-types.js';
export type { AgentRemoval, AgentWorktree, AgentWorktreeRequest } from './services/worktrees/agent-worktrees.js';
export type { CycleStep, JournalEntry, JournalKind, JournalQuery, WaitRecord } from './store/journal-types.js';
export { JOURNAL_KINDS } from './store/journal-types.js';
export { describeEntry } from './services/journal/describe-entry.js';
export type { GuardStatus } from './services/commits/guard.js';
export type { HookState } from './git/hooks.js';
export type { Notice } from './services/context.js';
export type { IncludeReport } from './services/runtime/worktree-include.js';
export type { LanesConfig } from './core/config.js';
export type { SessionState } from './core/liveness.js';
export type { CreatedWorktree } from './services/worktrees/worktrees.js';
export type { PathCommitResult } from './git/commit-paths.js';
export type { RepoInfo } from './git/repo.js';
export { repoInfo as findRepository } from './git/repo.js';
export { mainWorktreeOf } from './git/main-worktree.js';
export { shellWord } from './core/shell-quote.js';
export { untrackedOf } from './git/status.js';
export { copyStore, migrateStore, storeStatus } from './services/doctor/store-admin.js';
export type { StoreStatus } from './services/doctor/store-admin.js';
export { runBroker } from './store/postgres/broker/run.js';
export type { BrokerInput, BrokerStatus } from './store/postgres/broker/run.js';
export { resolveStore } from './services/config.js';
export { copyWorktreeIncludes } from './services/runtime/worktree-include.js';
export type {
  Attention,
  AttentionState,
  ChangeMark,
  ClaimRecord,
  Grant,
  SessionRecord,
  StoreInfo,
} from './store/types.js';
export { LanesError, EXIT, exitCodeFor, isLanesError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';
export { encodeEnvelope, decodeEnvelope, assertOwner } from './core/handoff-envelope.js';
export type { Envelope, EnvelopeHeader } from './core/handoff-envelope.js';
export { judgeOwner } from './core/liveness.js';
export { identityOf, readProcStat, parseProcStat } from './core/process-identity.js';
export type { OwnerIdentity } from './core/process-identity.js';
export { parseResource, pathsOverlap, formatResource } from './core/resource.js';
export type { ResourceRef } from './core/resource.js';
export { AGENTS, hookSessionId } from './core/hook-event.js';
export type { AgentName, HookDecision, HookEvent, HookKind } from './core/hook-event.js';
export { OutageWatch, isOutage } from './services/outage.js';
export { spoolUnchecked } from './core/unchecked-spool.js';
export type { UncheckedCall } from './core/unchecked-spool.js';
