import { childProcess } from '../core/builtins.js';
import { LanesError } from '../core/errors.js';

/** A failed git invocation: its arguments, cwd, exit code and stderr. */
export class GitError extends LanesError {
  readonly args: string[];
  readonly exit: number | null;
  readonly stderr: string;
  readonly stdout: string;

  constructor(args: string[], cwd: string, exit: number | null, stderr: string, stdout = '') {
    super('E_GIT', `git ${args.join(' ')} failed in ${cwd} (exit ${String(exit)}): ${stderr.trim().split('\n')[0] ?? ''}`, {
      details: { args, cwd, exit, stderr },
    });
    this.args = args;
    this.exit = exit;
    this.stderr = stderr;
    this.stdout = stdout;
  }
}

export interface GitRunOptions {
  cwd: string;
  /** Extra environment on top of process.env (GIT_INDEX_FILE for private indexes). */
  env?: Record<string, string>;
  /** Bytes for git's stdin (commit messages, --index-info, …). */
  input?: string | Buffer;
}

/**
 * The only way lanes runs git: an argument array (never a shell string), an explicit cwd, and
 * LC_ALL=C so messages we might read are not translated.
 */
export function git(args: string[], options: GitRunOptions): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    // GIT_LITERAL_PATHSPECS: a path is a path (a file named '*' or ':x' is not a pattern or magic).
    const env = { ...process.env, ...options.env, LC_ALL: 'C', GIT_LITERAL_PATHSPECS: '1', GIT_TERMINAL_PROMPT: '0' };
    const child = childProcess().execFile('git', args, { cwd: options.cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const code = typeof err.code === 'number' ? err.code : null;
        if (err.code === 'ENOENT') {
          reject(new LanesError('E_GIT', 'git is not installed or not on PATH', { hint: 'install git (apt-get install git)' }));
          return;
        }
        reject(new GitError(args, options.cwd, code, stderr, stdout));
        return;
      }
      resolvePromise(stdout);
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}
