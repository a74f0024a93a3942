// One finding of `lanes audit`: which check, where, what was seen, and the fix.

export const CHECKS = [
  'fixed-path-handoff',
  'stage-then-pause',
  'unlocked-clear',
  'save-everything-sweep',
  'hard-coded-port',
  'shared-dev-database',
  'shared-build-cache',
  'global-config-write',
] as const;

export type CheckId = (typeof CHECKS)[number];

export interface Finding {
  check: CheckId;
  file: string;
  line: number;
  /** What is there, in a few words (the path, the command). */
  what: string;
}
