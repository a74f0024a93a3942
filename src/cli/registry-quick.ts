// The quick commands' entries: read-only looks a person types often (`lanes ls`), part of the one
// list in registry.ts. Apart so that dist/quick.cjs (quick.ts) carries them without the whole CLI:
// a cold start of main.cjs (1.3 MB) was most of what `ls` cost over `node -e 0` (issue 48, item 5).
import type { CommandEntry } from './command.js';

export const LS: CommandEntry = {
  name: 'ls',
  group: 'sessions',
  hot: false,
  quick: true,
  load: () => import('./commands/ls.js'),
  summary: 'list sessions: live, dead (owner gone) or ended',
};

export const QUICK_COMMANDS: readonly CommandEntry[] = [LS];
