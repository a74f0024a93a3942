import { CHECKS } from './checks/finding.js';
import type { CheckId, Finding } from './checks/finding.js';
import type { AuditFile } from './step.js';

// The report the second incident's author asked for: each check PASS or FAIL with file:line
// evidence and its fix, then a verdict — applies (the class of bug lives here), partially (only
// its next surfaces), out of scope (nothing here that runs beside other sessions), no — and the
// single most important next action.

export interface CheckResult {
  check: CheckId;
  title: string;
  status: 'PASS' | 'FAIL';
  findings: Finding[];
  /** The lanes command or config that replaces the pattern. */
  fix: string;
  /** The same in a table's cell. */
  short: string;
}

export interface AuditReport {
  root: string;
  /** What was read, by kind. */
  read: Record<AuditFile['kind'], number>;
  checks: CheckResult[];
  findings: Finding[];
  verdict: 'applies' | 'partially' | 'out of scope' | 'no';
  next: string;
  /** Files of a kind it reads that it did not: over 1 MiB, or minified. */
  skipped: string[];
}

const ABOUT: Record<CheckId, { title: string; fix: string; short: string }> = {
  'fixed-path-handoff': {
    short: 'lanes path / lanes handoff',
    title: 'fixed-path handoffs',
    fix: 'a per-session path: `lanes path NAME` (or hand the data over with `lanes handoff`), and the same in the instructions',
  },
  'stage-then-pause': {
    short: 'lanes commit -m … -- PATHS',
    title: 'stage, then pause, then commit',
    fix: '`lanes commit -m MSG -- PATHS` (stages and commits the named paths in one step), or a worktree per session (`lanes start --worktree`)',
  },
  'unlocked-clear': {
    short: "the writers' lock / lanes state",
    title: "clears without the writers' lock",
    fix: 'take the same lock around the clear, or keep the state behind the gate (`lanes state`)',
  },
  'save-everything-sweep': {
    short: 'lanes sweep',
    title: 'save-everything sweeps',
    fix: '`lanes sweep` (saves only work no live session owns), or check the owner before saving each',
  },
  'hard-coded-port': {
    short: 'lanes port NAME',
    title: 'hard-coded ports',
    fix: 'a leased port: `lanes port NAME` (or `${PORT_NAME:-…}` from `lanes env`, `[ports]` in lanes.toml)',
  },
  'shared-dev-database': {
    short: 'a name per session',
    title: 'a shared dev database',
    fix: 'a database per session: `[env] APP_DB = "app_{slug}"` in lanes.toml (with `[session] setup`/`teardown` to create and drop it), read from `lanes env`',
  },
  'shared-build-cache': {
    short: 'a cache per session',
    title: 'shared build caches',
    fix: "a cache inside the worktree, or under the session's private TMPDIR (`lanes env`)",
  },
  'global-config-write': {
    short: 'local config / a file: claim',
    title: 'writes to global config or credentials',
    fix: 'repository-local config (`git config --local`, a project .npmrc), or a `file:` claim around the write',
  },
};

/** The order a person fixes them in: what loses or publishes another session's work first. */
const PRIORITY: CheckId[] = [
  'fixed-path-handoff',
  'unlocked-clear',
  'save-everything-sweep',
  'stage-then-pause',
  'global-config-write',
  'shared-dev-database',
  'hard-coded-port',
  'shared-build-cache',
];
const CORE = new Set<CheckId>(['fixed-path-handoff', 'stage-then-pause', 'unlocked-clear', 'save-everything-sweep']);

export function verdictOf(root: string, files: AuditFile[], findings: Finding[], skipped: string[] = []): AuditReport {
  const read = {} as AuditReport['read'];
  for (const f of files) read[f.kind] = (read[f.kind] ?? 0) + 1;
  const checks = CHECKS.map((check) => {
    const mine = findings.filter((f) => f.check === check);
    return { check, ...ABOUT[check], status: mine.length ? ('FAIL' as const) : ('PASS' as const), findings: mine };
  });
  const failing = new Set(findings.map((f) => f.check));
  const verdict = !files.length
    ? 'out of scope'
    : [...failing].some((c) => CORE.has(c))
      ? 'applies'
      : failing.size
        ? 'partially'
        : 'no';
  const first = PRIORITY.find((c) => failing.has(c));
  // An instruction file first: fixed there, no session that follows it brings the bug back.
  const docs = new Set(files.filter((f) => f.kind === 'markdown').map((f) => f.path));
  const mine = findings.filter((f) => f.check === first);
  const at = first ? (mine.find((f) => docs.has(f.file)) ?? mine[0]!) : null;
  const next = at
    ? `${ABOUT[at.check].title}: fix ${at.file}:${at.line} (${at.what}) with ${ABOUT[at.check].fix}${findings.filter((f) => f.check === at.check).length > 1 ? `, then the other ${findings.filter((f) => f.check === at.check).length - 1} place(s) of the same check` : ''}`
    : files.length
      ? 'nothing to fix: keep running lanes audit when the automation changes'
      : 'nothing here runs beside other sessions: no scripts, build files, workflows or agent instructions were found';
  return { root, read, checks, findings, verdict, next, skipped };
}
