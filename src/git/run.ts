import type { ExecFileException } from 'node:child_process';
import { statSync } from 'node:fs';
import { childProcess } from '../core/builtins.js';
import { LanesError } from '../core/errors.js';

const DEFAULT_MAX_BUFFER = 256 * 1024 * 1024;

/** How a git invocation ended without success: an exit code, a signal, or output past the limit (then both are null). */
export interface GitFailure {
  /** Exit code, when git exited by itself. */
  exit: number | null;
  /** The signal that ended git (SIGKILL from the OOM killer or a user, …). */
  signal: NodeJS.Signals | null;
  /** Set when git wrote more than this many bytes to one stream and lanes stopped it. */
  outputLimit?: { stream: 'stdout' | 'stderr'; bytes: number };
}

/** A failed git invocation: its arguments, cwd, how it ended (exit code, signal, output limit) and stderr. */
export class GitError extends LanesError {
  readonly args: string[];
  readonly exit: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly stdout: string;

  constructor(args: string[], cwd: string, failure: GitFailure, stderr: string, stdout = '') {
    const { exit, signal, outputLimit } = failure;
    const hint = gitAdvice(stderr);
    super('E_GIT', gitFailureMessage(args, cwd, failure, stderr), {
      ...(hint ? { hint } : {}),
      details: { args, cwd, exit, signal, ...(outputLimit ? { outputLimit } : {}), stderr },
    });
    this.args = args;
    this.exit = exit;
    this.signal = signal;
    this.stderr = stderr;
    this.stdout = stdout;
  }
}

function gitFailureMessage(
  args: string[],
  cwd: string,
  { exit, signal, outputLimit }: GitFailure,
  stderr: string,
): string {
  const cmd = `git ${args.join(' ')}`;
  const lines = stderr.trim().split('\n');
  const firstLine = lines[0] ?? '';
  // git often opens with a heading and ends with the cause ("Author identity unknown" ... "fatal:
  // unable to auto-detect email address"): both are said.
  const fatal = lines.slice(1).find((l) => /^(fatal|error): /.test(l));
  const said = firstLine ? `: ${firstLine}${fatal ? ` (${fatal})` : ''}` : '';
  if (outputLimit)
    return `${cmd} in ${cwd} produced more than ${formatBytes(outputLimit.bytes)} of output on ${outputLimit.stream} (stopped)`;
  if (signal) return `${cmd} in ${cwd} was killed by ${signal}${said}`;
  return `${cmd} failed in ${cwd} (exit ${String(exit)})${said}`;
}

/**
 * git's own advice, kept for the fix line: the identity it asks for (lanes' fix, which works in an
 * agent's shell too), or its `hint:` lines. Nothing when git gave none.
 */
export function gitAdvice(stderr: string): string | undefined {
  if (/Please tell me who you are|Author identity unknown|unable to auto-detect email address/.test(stderr))
    return 'git has no identity to commit with: set one with git config --global user.name "Your Name" && git config --global user.email you@example.com (without --global: this repository only)';
  const hints = stderr
    .split('\n')
    .filter((l) => l.startsWith('hint: '))
    .map((l) => l.slice(6).trim())
    .filter(Boolean);
  return hints.length ? `git says: ${hints.join(' ')}` : undefined;
}

function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return `${n} bytes`;
}

export interface GitRunOptions {
  cwd: string;
  /** Extra environment on top of process.env (GIT_INDEX_FILE for private indexes). */
  env?: Record<string, string>;
  /** Bytes for git's stdin (commit messages, --index-info, …). */
  input?: string | Buffer;
  /**
   * Most bytes accepted on stdout (and, separately, stderr); past it git is stopped (SIGTERM) and the
   * call fails with a GitError saying so. Default 256 MiB. Only for commands that read: a git
   * stopped mid-write leaves whatever it had not finished (a stale index.lock, say).
   */
  maxBuffer?: number;
  /** Pathspec magic on (`:(exclude,literal)…`); every other call takes each path literally. */
  pathspecMagic?: boolean;
}

/**
 * The only way lanes runs git: an argument array (never a shell string), an explicit cwd, and
 * LC_ALL=C so messages we might read are not translated.
 */
export function git(args: string[], options: GitRunOptions): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    // GIT_LITERAL_PATHSPECS: a path is a path (a file named '*' or ':x' is not a pattern or magic).
    // GIT_OPTIONAL_LOCKS=0: lanes reads agents' worktrees from the side (the page, ls, the sweep):
    // a `git status` that took index.lock to refresh the index made an agent's own `git commit` at
    // that moment fail ("index.lock: File exists"). Locks git needs are taken as always.
    const env = {
      ...process.env,
      ...options.env,
      LC_ALL: 'C',
      GIT_LITERAL_PATHSPECS: options.pathspecMagic ? '0' : '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
    };
    const maxBuffer = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
    let child;
    try {
      child = childProcess().execFile(
        'git',
        args,
        { cwd: options.cwd, env, maxBuffer, encoding: 'utf8' },
        (err, stdout, stderr) => {
          if (!err) resolvePromise(stdout);
          else if (isSpawnError(err)) reject(cannotStart(args, options.cwd, err));
          else reject(new GitError(args, options.cwd, failureOf(err, maxBuffer), stderr, stdout));
        },
      );
    } catch (e) {
      // Some spawn failures (a cwd that is a file: ENOTDIR) throw instead of reaching the callback.
      reject(cannotStart(args, options.cwd, e as Error));
      return;
    }
    // A git that exits without reading all of its stdin (it failed early, or never reads stdin)
    // makes the write fail with EPIPE, emitted on child.stdin; unhandled, that 'error' event would
    // crash the process. The exit code, signal and stderr in the callback report what happened.
    child.stdin?.on('error', () => {});
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** git never ran: the error comes from spawning it (syscall "spawn git"), not from git. */
function isSpawnError(err: ExecFileException): boolean {
  return typeof err.code === 'string' && (err.syscall?.startsWith('spawn') ?? false);
}

/**
 * Node reports a missing cwd as ENOENT of "spawn git", the same as a missing git binary, so the
 * directory is checked before blaming git's installation.
 */
function cannotStart(args: string[], cwd: string, err: Error & { code?: string | number | null }): LanesError {
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    return new LanesError('E_GIT', `cannot run git ${args.join(' ')} in ${cwd}: no such directory`, {
      details: { args, cwd },
      cause: err,
    });
  }
  if (err.code === 'ENOENT')
    return new LanesError('E_GIT', 'git is not installed or not on PATH', {
      hint: 'install git (apt-get install git)',
      cause: err,
    });
  return new LanesError('E_GIT', `cannot start git ${args.join(' ')} in ${cwd}: ${err.message}`, {
    details: { args, cwd },
    cause: err,
  });
}

/**
 * execFile's error: `code` is the exit code (a number) or a Node error code; `signal` is set when
 * a signal ended git. Past maxBuffer Node kills git itself and reports only the error code
 * ERR_CHILD_PROCESS_STDIO_MAXBUFFER ("stdout maxBuffer length exceeded"), with no exit or signal.
 */
function failureOf(err: ExecFileException, maxBuffer: number): GitFailure {
  const exit = typeof err.code === 'number' ? err.code : null;
  const signal = err.signal ?? null;
  if (err.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
    const stream = err.message.startsWith('stderr') ? 'stderr' : 'stdout';
    return { exit, signal, outputLimit: { stream, bytes: maxBuffer } };
  }
  return { exit, signal };
}
