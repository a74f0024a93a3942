// The commands that set up, start and stop a fleet (issues 27, 47): part of the one list in registry.ts.
import type { CommandEntry } from './command.js';

export const FLEET_COMMANDS: readonly CommandEntry[] = [
  // First: a repository is set up once, before its first night.
  {
    name: 'setup',
    group: 'fleet',
    hot: false,
    load: () => import('./commands/setup.js'),
    summary: "set up a repository: the agents' hooks, the guard, a commented lanes.toml (--undo puts it back)",
  },
  {
    name: 'new',
    group: 'fleet',
    hot: false,
    load: () => import('./commands/new.js'),
    summary: 'start an agent on a ticket in its own worktree, detached in tmux',
  },
  {
    name: 'up',
    group: 'fleet',
    hot: false,
    load: () => import('./commands/up.js'),
    summary: 'lanes new for each ticket',
  },
  {
    name: 'attach',
    group: 'fleet',
    hot: false,
    load: () => import('./commands/attach.js'),
    summary: 'join the tmux session of a session lanes new started',
  },
  {
    name: 'stop',
    group: 'fleet',
    hot: false,
    load: () => import('./commands/stop.js'),
    summary: 'ask its agent to exit, then snapshot and end the session',
  },
  {
    name: 'top',
    group: 'fleet',
    hot: false,
    load: () => import('./commands/top.js'),
    summary: 'the fleet live in the terminal: needs you, waiting, working, finished, died',
  },
  {
    name: 'watch',
    group: 'fleet',
    hot: false,
    load: () => import('./commands/watch.js'),
    summary: "the per-host watcher: this host's deaths seen and told when they happen (started on demand)",
  },
  {
    name: 'teardown',
    group: 'sessions',
    hot: false,
    load: () => import('./commands/teardown.js'),
    summary: "run a session's [session] teardown again (it failed, or was killed)",
  },
  {
    name: 'allow',
    group: 'admin',
    hot: false,
    load: () => import('./commands/allow.js'),
    summary: "allow what a repository's lanes.toml runs (setup, teardown, [env]): that exact content",
  },
  {
    name: 'deny',
    group: 'admin',
    hot: false,
    load: () => import('./commands/deny.js'),
    summary: "deny or revoke what a repository's lanes.toml runs",
  },
  {
    name: 'shell-init',
    group: 'admin',
    hot: false,
    load: () => import('./commands/shell-init.js'),
    summary: 'the shell function that lets --cd leave you in a new worktree',
  },
];
