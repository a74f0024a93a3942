import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'dist', 'cli.cjs');
export const FIXTURES = join(ROOT, 'test', 'fixtures');

/**
 * The tests import src/ but spawn the built CLI (and fixtures that import dist/): a file run alone
 * after an edit would test the old code under the new one's name. Refuse that at once.
 */
function assertDistFresh(): void {
  let newest = { at: 0, file: '' };
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|css|html)$/.test(e.name)) {
        const at = statSync(p).mtimeMs;
        if (at > newest.at) newest = { at, file: p };
      }
    }
  };
  walk(join(ROOT, 'src'));
  const built = existsSync(CLI) ? statSync(CLI).mtimeMs : 0;
  if (built < newest.at)
    throw new Error(
      `dist/ is older than ${newest.file.slice(ROOT.length + 1)}: the spawned CLI would be stale. Run \`npm run build\` first (npm test does).`,
    );
}
assertDistFresh();

/** A fresh temp directory, removed when the test file ends. */
export function tmp(prefix = 'lanes-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Retried: a lanes process of the test (a watcher, a background reap) may still write in it as it
  // is removed (ENOTEMPTY once in .ci/run).
  after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));
  return dir;
}

// The switches of the run on the `ps` path (scripts/test-ps-path.mjs) reach every lanes process.
const SIMULATION = new Set(['LANES_PLATFORM', 'LANES_TEST_BOOT_ID', 'LANES_PROC_GUARD_LOG']);

/** An isolated lanes world: its own LANES_HOME (store + runtime dirs), no inherited session. */
export function lanesEnv(home = tmp('lanes-home-')): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && (!k.startsWith('LANES_') || SIMULATION.has(k)) && k !== 'XDG_RUNTIME_DIR') env[k] = v;
  env['LANES_HOME'] = home;
  env['NO_COLOR'] = '1';
  // A team store's host broker leaves 2 s after its last client (a minute for users): each test's
  // LANES_HOME has a broker of its own, and they must not pile up on the test server.
  env['LANES_BROKER_IDLE_MS'] = '2000';
  // The per-host watcher (lanes watch) would start in every world that starts a session and live
  // as long as its sessions: the tests of deaths and teardowns turn it on (watching()).
  env['LANES_WATCH'] = '0';
  return env;
}

/** A real git repository on branch main, with a user, no signing and no automatic gc. */
export function gitRepo(dir = tmp('lanes-repo-')): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Lanes Test');
  git('config', 'user.email', 'test@lanes.invalid');
  git('config', 'commit.gpgsign', 'false');
  git('config', 'gc.auto', '0');
  writeFileSync(join(dir, 'README.md'), 'test\n');
  git('add', 'README.md');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

/**
 * The person's `lanes allow` of the repository's lanes.toml as it is now (issue 46): nothing a
 * repository's lanes.toml runs or sets runs before it.
 */
export async function allowConfig(repo: string, env: Record<string, string>): Promise<void> {
  const r = await lanes(['allow'], { env, cwd: repo });
  if (r.code !== 0) throw new Error(`lanes allow in ${repo} failed (${r.code}): ${r.stderr}`);
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export interface RunOptions {
  env?: Record<string, string>;
  cwd?: string;
  input?: string | Buffer;
  /** SIGKILL the child after this long (a command that must not hang: it then ends with signal SIGKILL). */
  timeoutMs?: number;
}

/** Runs the built `lanes` binary to completion. */
export function lanes(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return run(process.execPath, [CLI, ...args], options);
}

export function run(file: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { cwd: options.cwd ?? process.cwd(), env: options.env ?? lanesEnv() });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    const killer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      const stdoutBytes = Buffer.concat(out);
      resolvePromise({
        code,
        signal,
        stdout: stdoutBytes.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        stdoutBytes,
      });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A long-running child with line-based signalling: `await child.line(/holding/)`. */
export class Child {
  readonly proc: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: (() => void)[] = [];

  constructor(file: string, args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
    this.proc = spawn(file, args, { cwd: options.cwd ?? process.cwd(), env: options.env ?? lanesEnv() });
    const wake = () => {
      for (const w of this.waiters.splice(0)) w();
    };
    this.proc.stdout.on('data', (d: Buffer) => {
      this.stdout += d.toString('utf8');
      wake();
    });
    this.proc.stderr.on('data', (d: Buffer) => {
      this.stderr += d.toString('utf8');
      wake();
    });
    this.exited = new Promise((res) =>
      this.proc.on('close', (code, signal) => {
        wake();
        res({ code, signal });
      }),
    );
    after(() => {
      if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
    });
  }

  /** Resolves when stdout (or stderr) matches; rejects if the child exits first. */
  async waitFor(
    pattern: RegExp,
    stream: 'stdout' | 'stderr' = 'stdout',
    timeoutMs = 20_000,
  ): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    for (;;) {
      const m = this[stream].match(pattern);
      if (m) return m;
      if (exited)
        throw new Error(`child exited before ${pattern} on ${stream}; stdout=${this.stdout} stderr=${this.stderr}`);
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${pattern} on ${stream}; stdout=${this.stdout} stderr=${this.stderr}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, 250);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  send(line: string): void {
    this.proc.stdin.write(line + '\n');
  }
}

export function node(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Child {
  return new Child(process.execPath, [join(FIXTURES, script), ...args], options);
}

/**
 * A live process to own a session, as an agent process would (test/fixtures/sleeper.mjs): started
 * and ready; `kill()` SIGKILLs it (it is killed after the test file in any case).
 */
export async function owner(
  env?: Record<string, string>,
): Promise<{ pid: string; child: Child; kill(): Promise<void> }> {
  const child = node('sleeper.mjs', [], env ? { env } : {});
  const [, pid] = (await child.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  return {
    pid: pid!,
    child,
    async kill() {
      child.proc.kill('SIGKILL');
      await child.exited;
    },
  };
}

export function lanesChild(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Child {
  return new Child(process.execPath, [CLI, ...args], options);
}

/** A world's environment with the per-host watcher on, as users have it (lanesEnv turns it off). */
export function watching(env: Record<string, string>): Record<string, string> {
  const on: Record<string, string> = { ...env, LANES_WATCH_IDLE: '3s' };
  delete on['LANES_WATCH'];
  return on;
}
