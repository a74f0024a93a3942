import { execFile } from 'node:child_process';
import { LanesError } from '../core/errors.js';

/** A failed git invocation: its arguments, cwd, exit code and stderr. */
export class GitError extends LanesError {
  readonly args: string[];
  readonly exit: number | null;
  readonly stderr: string;

  constructor(args: string[], cwd: string, exit: number | null, stderr: string) {
    super('E_GIT', `git ${args.join(' ')} failed in ${cwd} (exit ${String(exit)}): ${stderr.trim().split('\n')[0] ?? ''}`, {
      details: { args, cwd, exit, stderr },
    });
    this.args = args;
    this.exit = exit;
    this.stderr = stderr;
  }
}

export interface GitRunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The only way lanes runs git: an argument array (never a shell string), an explicit cwd, and
 * LC_ALL=C so messages we might read are not translated.
 */
export function git(args: string[], options: GitRunOptions): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', args, { cwd: options.cwd, env: { ...(options.env ?? process.env), LC_ALL: 'C' }, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const code = typeof err.code === 'number' ? err.code : null;
        if (err.code === 'ENOENT') {
          reject(new LanesError('E_GIT', 'git is not installed or not on PATH', { hint: 'install git (apt-get install git)' }));
          return;
        }
        reject(new GitError(args, options.cwd, code, stderr));
        return;
      }
      resolvePromise(stdout);
    });
  });
}
