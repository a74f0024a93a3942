// One error type for the whole tool: a stable code, a one-line reason, details, and the command
// that fixes it. The CLI maps `code` to a documented exit code in exactly one place (exitCodeFor).

export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  held: 3,
  integrity: 4,
  timeout: 5,
  untrusted: 6,
} as const;

export type ErrorCode =
  | 'E_USAGE'
  | 'E_NOT_FOUND'
  | 'E_NO_SESSION'
  | 'E_UNKNOWN_SESSION'
  | 'E_SESSION_NAME'
  | 'E_NOT_YOURS'
  | 'E_SESSION_ENDED'
  | 'E_BAD_RESOURCE'
  | 'E_BAD_NAME'
  | 'E_TOO_LARGE'
  | 'E_SYMLINK'
  | 'E_UNSAFE_DIR'
  | 'E_CLAIM_HELD'
  | 'E_SHARED_INDEX'
  | 'E_LIVENESS_UNKNOWN'
  | 'E_DEADLOCK'
  | 'E_NOT_HOLDER'
  | 'E_CLEAR_IN_MUTATE'
  | 'E_WRONG_OWNER'
  | 'E_INTEGRITY'
  | 'E_FENCED'
  | 'E_TIMEOUT'
  | 'E_ABORTED'
  | 'E_STORE_CORRUPT'
  | 'E_STORE_LOCKED'
  | 'E_STORE_FULL'
  | 'E_STORE_NEWER'
  | 'E_STORE_IO'
  | 'E_STORE_AUTH'
  | 'E_STORE_MISSING'
  | 'E_STORE_VERSION'
  | 'E_STORE_NOT_EMPTY'
  | 'E_GIT'
  | 'E_REPO_STATE'
  | 'E_SNAPSHOT'
  | 'E_CONFIG'
  | 'E_HOOK_INPUT'
  | 'E_FLAGGED'
  | 'E_EDITED'
  | 'E_IO'
  | 'E_PLATFORM'
  | 'E_SETUP'
  | 'E_GH'
  | 'E_NO_SEAT'
  | 'E_PAY_PER_USE'
  | 'E_UNTRUSTED'
  | 'E_INTERNAL';

const EXIT_BY_CODE: Record<ErrorCode, number> = {
  E_USAGE: EXIT.usage,
  E_BAD_RESOURCE: EXIT.usage,
  E_BAD_NAME: EXIT.usage,
  E_NOT_FOUND: EXIT.error,
  // Never an exit code of `lanes hook` (it fails open with exit 0); seen only by library callers.
  E_HOOK_INPUT: EXIT.error,
  E_NO_SESSION: EXIT.error,
  E_UNKNOWN_SESSION: EXIT.error,
  E_SESSION_NAME: EXIT.usage,
  E_NOT_YOURS: EXIT.held,
  E_SESSION_ENDED: EXIT.error,
  E_TOO_LARGE: EXIT.error,
  E_SYMLINK: EXIT.error,
  E_UNSAFE_DIR: EXIT.error,
  E_NOT_HOLDER: EXIT.error,
  E_CLEAR_IN_MUTATE: EXIT.error,
  E_CLAIM_HELD: EXIT.held,
  E_SHARED_INDEX: EXIT.held,
  E_LIVENESS_UNKNOWN: EXIT.error,
  E_DEADLOCK: EXIT.held,
  E_WRONG_OWNER: EXIT.integrity,
  E_INTEGRITY: EXIT.integrity,
  E_FENCED: EXIT.integrity,
  E_TIMEOUT: EXIT.timeout,
  E_ABORTED: EXIT.timeout,
  E_STORE_CORRUPT: EXIT.error,
  E_STORE_LOCKED: EXIT.error,
  E_STORE_FULL: EXIT.error,
  E_STORE_NEWER: EXIT.error,
  E_STORE_IO: EXIT.error,
  E_STORE_AUTH: EXIT.error,
  E_STORE_MISSING: EXIT.error,
  E_STORE_VERSION: EXIT.error,
  E_STORE_NOT_EMPTY: EXIT.error,
  E_GIT: EXIT.error,
  // This OS gives lanes no way to prove liveness (unsupported, /proc hidden, ps missing).
  E_PLATFORM: EXIT.error,
  E_SETUP: EXIT.error,
  // The GitHub CLI (gh) is missing, not logged in, or GitHub refused (lanes pr).
  E_GH: EXIT.error,
  // No seat of the pool can be leased now: each is exhausted until its reset, or in use.
  E_NO_SEAT: EXIT.held,
  // A seat that bills per call, or a secret's value, where lanes takes neither without being told.
  E_PAY_PER_USE: EXIT.usage,
  E_REPO_STATE: EXIT.error,
  // The snapshot `end` takes first could not be made: the session is left open, nothing changed.
  E_SNAPSHOT: EXIT.error,
  E_CONFIG: EXIT.usage,
  // A repository's lanes.toml would run or set what the user has not allowed (lanes allow); nothing ran.
  E_UNTRUSTED: EXIT.untrusted,
  E_FLAGGED: EXIT.held,
  // `lanes setup --undo`: a file setup wrote was changed since; nothing was undone.
  E_EDITED: EXIT.held,
  E_IO: EXIT.error,
  E_INTERNAL: EXIT.error,
};

export interface LanesErrorOptions {
  /** The command or action that fixes it, shown as "fix: …". */
  hint?: string;
  /** Structured facts for --json output and for programs. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class LanesError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: LanesErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LanesError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details ?? {};
  }

  get exitCode(): number {
    return EXIT_BY_CODE[this.code];
  }

  toJSON(): Record<string, unknown> {
    return { error: { code: this.code, message: this.message, hint: this.hint, details: this.details } };
  }
}

export function isLanesError(e: unknown, code?: ErrorCode): e is LanesError {
  return e instanceof LanesError && (code === undefined || e.code === code);
}

export function exitCodeFor(e: unknown): number {
  return e instanceof LanesError ? e.exitCode : EXIT.error;
}
