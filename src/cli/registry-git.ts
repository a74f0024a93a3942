// `lanes diff`'s entry, part of the one list in registry.ts (apart only to keep that file under 300 lines).
import type { CommandEntry } from './command.js';

export const DIFF: CommandEntry = {
  name: 'diff',
  group: 'git',
  hot: false,
  load: () => import('./commands/diff.js'),
  summary: "a session's work against the main branch: committed and uncommitted (untracked as added)",
};
