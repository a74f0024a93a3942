// Types shared by several git modules. This file imports nothing, so any module of src/git can
// import from it without forming a cycle (import-x/no-cycle skips type-only imports, so a cycle
// through a type would not be reported).

export interface RepoInfo {
  /** Absolute git common dir: the same for every worktree of one repository, so it identifies the repository. */
  commonDir: string;
  /** Absolute root of the worktree containing cwd. */
  worktreeRoot: string;
}
