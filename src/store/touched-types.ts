import { foldPath } from '../core/resource.js';

// The index of paths sessions' agents edited (the early-conflict warning): one row per session,
// repository and path, looked up by a folded key, so a pre-edit check reads only the sessions that
// touched the path at hand, never every live session's whole list. The session's state key
// `lanes:touched` stays the record (statusline, dashboard); this index follows it.

export interface TouchedHit {
  sessionId: string;
  /** The repository-relative path as the session's agent recorded it. */
  path: string;
}

export interface TouchedStore {
  /**
   * Records that `sessionId` touched `paths` of repository `repo` (repo-relative; `key` of each:
   * touchedKey()). `replace`: these are all of them (the end of a turn), the session's other rows go.
   */
  indexTouched(sessionId: string, repo: string, paths: string[], replace: boolean): Promise<void>;
  /** The open sessions' rows of `repo` whose key is one of `keys`, through the index. */
  touchedAt(repo: string, keys: string[]): Promise<TouchedHit[]>;
}

/** The lookup key of a path: folded (NFC, lower case), so a case-insensitive repository finds every spelling; callers compare exactly where case matters. */
export const touchedKey = foldPath;
