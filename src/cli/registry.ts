// The one list of lanes' commands. The dispatcher (bin.ts) reads `hot` to pick the bundle, the
// bundles load commands through `load`, `lanes --help` prints `usage` and `summary`, and a test
// checks the README's command table against it. scripts/build.mjs leaves out of each bundle the
// commands it cannot run (the dispatcher runs none; the hot bundle only the hot ones).
import type { CommandSpec } from './command.js';
import { FLEET_COMMANDS } from './registry-fleet.js';

export interface CommandEntry {
  name: string;
  /** The short usage shown in `lanes --help` (each command's --help has the whole of it). */
  usage: string;
  summary: string;
  /** Runs inside every agent tool call or wraps every command: bundled into dist/hot.cjs. */
  hot: boolean;
  load: () => Promise<{ command: CommandSpec }>;
}

export const COMMANDS: readonly CommandEntry[] = [
  ...FLEET_COMMANDS,
  {
    name: 'start',
    hot: false,
    load: () => import('./commands/start.js'),
    usage: 'start [--worktree [--base REF]] [--ticket T] [--agent A] [--label L] [--pid PID] [-- CMD…]',
    summary: 'register a session (--worktree: in its own worktree; with CMD: run it as the session)',
  },
  {
    name: 'ls',
    hot: false,
    load: () => import('./commands/ls.js'),
    usage: 'ls [--all]',
    summary: 'list sessions: live, dead (owner gone) or ended',
  },
  {
    name: 'end',
    hot: false,
    load: () => import('./commands/end.js'),
    usage: 'end [SESSION] [--reason R] [--remove-worktree [--force]]',
    summary: 'snapshot its work, end a session, release all its claims',
  },
  {
    name: 'whoami',
    hot: false,
    load: () => import('./commands/whoami.js'),
    usage: 'whoami',
    summary: 'show the session of $LANES_SESSION',
  },
  {
    name: 'claim',
    hot: false,
    load: () => import('./commands/claim.js'),
    usage: 'claim RESOURCE… [--wait[=DURATION]]',
    summary: 'claim resources (all or nothing); prints fencing tokens',
  },
  {
    name: 'release',
    hot: false,
    load: () => import('./commands/release.js'),
    usage: 'release RESOURCE…',
    summary: 'release claims of this session',
  },
  {
    name: 'log',
    hot: false,
    load: () => import('./commands/log.js'),
    usage: 'log [--follow] [--since DURATION|SEQ] [--session S] [--ticket T] [--kind K]',
    summary: 'the decision journal: who claimed, was refused, denied, committed, landed, and when',
  },
  {
    name: 'report',
    hot: false,
    load: () => import('./commands/report.js'),
    usage: 'report [--since DURATION | --since-last] [--markdown] [--json]',
    summary: 'the night in one read: what landed, was refused, died, collided, and what needs you',
  },
  {
    name: 'notify',
    hot: false,
    load: () => import('./commands/notify.js'),
    usage: 'notify test',
    summary: 'try the notifications [notify] turns on (an agent waiting, finished, denied, dead)',
  },
  {
    name: 'claims',
    hot: false,
    load: () => import('./commands/claims.js'),
    usage: 'claims [--all]',
    summary: 'list claims of this repository and host (--all: everywhere)',
  },
  {
    name: 'check',
    hot: false,
    load: () => import('./commands/check.js'),
    usage: 'check RESOURCE',
    summary: 'who holds a resource (exit 3 when another live session does)',
  },
  {
    name: 'state',
    hot: false,
    load: () => import('./commands/state.js'),
    usage: 'state get|set|clear [KEY] [JSON]',
    summary: "read or change this session's gated state",
  },
  {
    name: 'handoff',
    hot: false,
    load: () => import('./commands/handoff.js'),
    usage: 'handoff put NAME [FILE|-] | get NAME [--from S]',
    summary: 'write an identity-stamped handoff / read one, proving who wrote it',
  },
  {
    name: 'path',
    hot: false,
    load: () => import('./commands/path.js'),
    usage: 'path NAME',
    summary: "a private per-session path for a tool's own file",
  },
  {
    name: 'commit',
    hot: false,
    load: () => import('./commands/commit.js'),
    usage: 'commit -m MSG [--] PATH…',
    summary: 'commit exactly these paths, never what others staged',
  },
  {
    name: 'snapshot',
    hot: false,
    load: () => import('./commands/snapshot.js'),
    usage: 'snapshot [--session S]',
    summary: 'save uncommitted work to a private ref',
  },
  {
    name: 'snapshots',
    hot: false,
    load: () => import('./commands/snapshots.js'),
    usage: 'snapshots [--session S]',
    summary: 'list snapshots',
  },
  {
    name: 'restore',
    hot: false,
    load: () => import('./commands/restore.js'),
    usage: 'restore SNAPSHOT [--into DIR]',
    summary: 'restore a snapshot into a new worktree or an empty directory',
  },
  {
    name: 'sweep',
    hot: false,
    load: () => import('./commands/sweep.js'),
    usage: 'sweep [--dry-run]',
    summary: 'pre-reboot save: snapshot every dirty worktree, flag collisions and stale copies',
  },
  {
    name: 'conflicts',
    hot: false,
    load: () => import('./commands/conflicts.js'),
    usage: 'conflicts [--against BRANCH]',
    summary: 'predict conflicts between live sessions and with the target branch',
  },
  {
    name: 'land',
    hot: false,
    load: () => import('./commands/land.js'),
    usage: 'land [--into BRANCH] [--ff|--merge|--squash]',
    summary: "publish this session's branch, fenced by its ticket claim",
  },
  {
    name: 'adopt',
    hot: false,
    load: () => import('./commands/adopt.js'),
    usage: 'adopt SESSION',
    summary: "take over a dead or ended session's claims and worktree",
  },
  {
    name: 'guard',
    hot: false,
    load: () => import('./commands/guard.js'),
    usage: 'guard install [--protect BRANCH] | uninstall | status',
    summary: 'git hooks: stop plain commits of claimed paths; protect branches',
  },
  {
    name: 'gc',
    hot: false,
    load: () => import('./commands/gc.js'),
    usage: 'gc [--dry-run] [--limit N]',
    summary: "end this host's dead sessions: snapshot their work, release their claims",
  },
  {
    name: 'doctor',
    hot: false,
    load: () => import('./commands/doctor.js'),
    usage: 'doctor [--fix]',
    summary: 'find dead sessions, orphan worktrees, stale claims, shared worktrees; fix what is safe',
  },
  {
    name: 'port',
    hot: false,
    load: () => import('./commands/port.js'),
    usage: 'port NAME',
    summary: 'lease a TCP port to this session',
  },
  {
    name: 'ports',
    hot: false,
    load: () => import('./commands/ports.js'),
    usage: 'ports',
    summary: 'list leased ports of this machine',
  },
  {
    name: 'env',
    hot: false,
    load: () => import('./commands/env.js'),
    usage: 'env [--shell sh|fish|json|dotenv] [--check]',
    summary: "the session's environment (ports, TMPDIR, templated names)",
  },
  {
    name: 'exec',
    hot: true,
    load: () => import('./commands/exec.js'),
    usage: 'exec [--session S] -- CMD…',
    summary: "run CMD with the session's environment, secrets stripped",
  },
  {
    name: 'hooks',
    hot: false,
    load: () => import('./commands/hooks.js'),
    usage: 'hooks install|uninstall|status AGENT…',
    summary: "lanes' hooks in Claude Code, Codex, Gemini CLI, Cursor, Copilot CLI, OpenCode",
  },
  {
    name: 'mcp',
    hot: false,
    load: () => import('./commands/mcp.js'),
    usage: 'mcp [--agent AGENT]',
    summary: 'serve lanes to an agent over the Model Context Protocol (stdio)',
  },
  {
    name: 'ui',
    hot: false,
    load: () => import('./commands/ui.js'),
    usage: 'ui [--port N] [--host H] [--open]',
    summary: 'a live web dashboard of the fleet on 127.0.0.1 (URL with a per-run token)',
  },
  {
    name: 'hook',
    hot: true,
    load: () => import('./commands/hook.js'),
    usage: 'hook AGENT EVENT',
    summary: 'answer one agent hook call (JSON on stdin); used by the installed hooks',
  },
  {
    name: 'statusline',
    hot: true,
    load: () => import('./commands/statusline.js'),
    usage: 'statusline',
    summary: "Claude Code's status line: this session, its claims, who else works here (JSON on stdin)",
  },
  {
    name: 'store',
    hot: false,
    load: () => import('./commands/store.js'),
    usage: 'store status|migrate|copy',
    summary: 'the store: SQLite file or PostgreSQL team store',
  },
  {
    name: 'demo',
    hot: false,
    load: () => import('./commands/demo.js'),
    usage: 'demo',
    summary: 'show each protection working in a temporary repository',
  },
];
