// What `lanes audit` reads (issue 51): a repository's automation and its agents' instruction files,
// each turned into steps — a statement of a script, a recipe line, a package.json script, a
// workflow's `run:`, a command in a skill's code block — with where it is written. The checks
// (checks/*.ts) read steps, never files: one reader per kind of file (read-*.ts) decides what a
// step is in its language, so a comment or a string is never mistaken for code.

export type Lang = 'sh' | 'py' | 'js';

export interface Step {
  /** Path relative to the audited root, forward slashes. */
  file: string;
  line: number;
  lang: Lang | 'prose';
  /** The statement, comments removed, its lines joined (strings kept as written). */
  text: string;
  /** Its string literals (py/js), in order; for shell the words are read from `text`. */
  strings: string[];
  /**
   * Where it stands in its file: a procedure's step (a Markdown code block or list item) for an
   * instruction file, the enclosing function (py/js: its `def`/`function` line) or 0 for the top level.
   */
  scope: number;
  /** Whether the file is an agent's instruction file or skill (a procedure an agent follows). */
  procedure: boolean;
  /** Inside a loop over directories, worktrees or repositories (checks/sweeps.ts), or 0. */
  loop: number;
}

export interface AuditFile {
  /** Relative to the root, forward slashes. */
  path: string;
  kind: 'shell' | 'python' | 'js' | 'makefile' | 'package-json' | 'workflow' | 'markdown' | 'agent-config';
}
