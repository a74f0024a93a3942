// `lanes diff`'s, `audit`'s, `ready`'s, `queue`'s, `pr`'s, `tell`'s, `budget`'s and `continue`'s entries, part of the one list in registry.ts (apart only to keep that file under 300 lines).
import type { CommandEntry } from './command.js';

export const DIFF: CommandEntry = {
  name: 'diff',
  group: 'git',
  hot: false,
  load: () => import('./commands/diff.js'),
  summary: "a session's work against the main branch: committed and uncommitted (untracked as added)",
};

export const READY: CommandEntry = {
  name: 'ready',
  group: 'git',
  hot: false,
  load: () => import('./commands/ready.js'),
  summary: 'mark a session ready to land: lanes land --queue lands the ready ones in order',
};

export const QUEUE: CommandEntry = {
  name: 'queue',
  group: 'git',
  hot: false,
  load: () => import('./commands/queue.js'),
  summary: 'the landing queue: the sessions ready to land, in order, and those it stopped',
};

export const TELL: CommandEntry = {
  name: 'tell',
  group: 'sessions',
  hot: false,
  load: () => import('./commands/tell.js'),
  summary: "tell a session's agent something: it reaches the agent through its hooks",
};

export const PR: CommandEntry = {
  name: 'pr',
  group: 'git',
  hot: false,
  load: () => import('./commands/pr.js'),
  summary: "push a session's branch and open a pull request with gh (--list: them and their checks)",
};

export const BUDGET: CommandEntry = {
  name: 'budget',
  group: 'sessions',
  hot: false,
  load: () => import('./commands/budget.js'),
  summary: 'what a session may spend and has spent; raise: a higher hard limit',
};

export const CONTINUE: CommandEntry = {
  name: 'continue',
  group: 'sessions',
  hot: false,
  load: () => import('./commands/continue.js'),
  summary: 'let a session paused by its budget go on (each limit reached raised by its size)',
};

export const AUDIT: CommandEntry = {
  name: 'audit',
  group: 'admin',
  hot: false,
  load: () => import('./commands/audit.js'),
  summary: "find the bug class lanes prevents in a repository's own automation and agent instructions",
};
