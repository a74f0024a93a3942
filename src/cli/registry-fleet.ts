// The commands that start and stop a fleet (issue 27): part of the one list in registry.ts.
import type { CommandEntry } from './command.js';

export const FLEET_COMMANDS: readonly CommandEntry[] = [
  {
    name: 'new',
    hot: false,
    load: () => import('./commands/new.js'),
    usage: 'new TICKET [--agent AGENT] [-- CMD]',
    summary: 'start an agent on a ticket in its own worktree, detached in tmux',
  },
  {
    name: 'up',
    hot: false,
    load: () => import('./commands/up.js'),
    usage: 'up TICKET…',
    summary: 'lanes new for each ticket',
  },
  {
    name: 'attach',
    hot: false,
    load: () => import('./commands/attach.js'),
    usage: 'attach SESSION',
    summary: 'join the tmux session of a session lanes new started',
  },
  {
    name: 'stop',
    hot: false,
    load: () => import('./commands/stop.js'),
    usage: 'stop SESSION',
    summary: 'ask its agent to exit, then snapshot and end the session',
  },
  {
    name: 'top',
    hot: false,
    load: () => import('./commands/top.js'),
    usage: 'top',
    summary: 'the fleet live in the terminal: needs you, waiting, working, finished, died',
  },
  {
    name: 'watch',
    hot: false,
    load: () => import('./commands/watch.js'),
    usage: 'watch [--once]',
    summary: "the per-host watcher: this host's deaths seen and told when they happen (started on demand)",
  },
  {
    name: 'teardown',
    hot: false,
    load: () => import('./commands/teardown.js'),
    usage: 'teardown SESSION',
    summary: "run a session's [session] teardown again (it failed, or was killed)",
  },
  {
    name: 'allow',
    hot: false,
    load: () => import('./commands/allow.js'),
    usage: 'allow [PATH] [--rev REV] [--show] [--list]',
    summary: "allow what a repository's lanes.toml runs (setup, teardown, [env]): that exact content",
  },
  {
    name: 'deny',
    hot: false,
    load: () => import('./commands/deny.js'),
    usage: 'deny [PATH] [--rev REV]',
    summary: "deny or revoke what a repository's lanes.toml runs",
  },
  {
    name: 'shell-init',
    hot: false,
    load: () => import('./commands/shell-init.js'),
    usage: 'shell-init bash|zsh|fish',
    summary: 'the shell function that lets --cd leave you in a new worktree',
  },
];
