const LINES: [string, string][] = [
  ['start [--worktree [--base REF]] [--ticket T] [--agent A] [--label L] [--pid PID] [-- CMD…]', 'register a session (--worktree: in its own worktree; with CMD: run it as the session)'],
  ['ls [--all]', 'list sessions: live, dead (owner gone) or ended'],
  ['end [SESSION] [--reason R] [--remove-worktree [--force]]', 'snapshot its work, end a session, release all its claims'],
  ['whoami', 'show the session of $LANES_SESSION'],
  ['claim RESOURCE… [--wait[=DURATION]]', 'claim resources (all or nothing); prints fencing tokens'],
  ['release RESOURCE…', 'release claims of this session'],
  ['claims [--all]', 'list claims of this repository and host (--all: everywhere)'],
  ['check RESOURCE', 'who holds a resource (exit 3 when another live session does)'],
  ['state get|set|clear [KEY] [JSON]', "read or change this session's gated state"],
  ['handoff put NAME [FILE|-]', 'write an identity-stamped handoff'],
  ['handoff get NAME [--from SESSION]', 'read a handoff, proving who wrote it'],
  ['path NAME', "a private per-session path for a tool's own file"],
  ['commit -m MSG [--] PATH…', 'commit exactly these paths, never what others staged'],
  ['snapshot [--session S]', 'save uncommitted work to a private ref'],
  ['snapshots [--session S]', 'list snapshots'],
  ['restore SNAPSHOT [--into DIR]', 'restore a snapshot into a new worktree or an empty directory'],
  ['sweep [--dry-run]', 'pre-reboot save: snapshot every dirty worktree, flag collisions and stale copies'],
  ['conflicts [--against BRANCH]', 'predict conflicts between live sessions and with the target branch'],
  ['land [--into BRANCH] [--ff|--merge|--squash]', "publish this session's branch, fenced by its ticket claim"],
  ['adopt SESSION', "take over a dead or ended session's claims and worktree"],
  ['guard install [--protect BRANCH] | uninstall | status', 'git hooks: stop plain commits of claimed paths; protect branches'],
  ['doctor [--fix]', 'find dead sessions, orphan worktrees, stale claims, shared worktrees; fix what is safe'],
  ['demo', 'show each protection working in a temporary repository'],
];

export function overview(): string {
  const width = Math.max(...LINES.map((l) => l[0].length));
  return [
    'lanes: the safety layer for running many AI coding agents and people in parallel.',
    '',
    'Usage: lanes <command> [options]      (lanes <command> --help for details)',
    '',
    'Commands:',
    ...LINES.map(([c, h]) => `  ${c.padEnd(width)}  ${h}`),
    '',
    'Resources: ticket:SEAT-42  path:src/billing/  branch:NAME  or any kind:name (kind [a-z][a-z0-9-]*)',
    'Environment: LANES_SESSION, LANES_STORE, LANES_HOME, XDG_RUNTIME_DIR, LANES_HOST_ID, LANES_LEASE_MS',
    'Exit codes: 0 ok, 1 error, 2 usage, 3 held or in conflict, 4 wrong owner/integrity/fencing, 5 timed out or aborted.',
    '',
  ].join('\n');
}
