import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * dist/worker.js, next to the running bundle's own file (dist/main.cjs, whose import.meta.url the
 * build defines as its file URL). Not next to process.argv[1]: installed as a package that is the
 * bin symlink (<prefix>/bin/lanes), and a worker "next to it" does not exist.
 */
export function workerPath(): string {
  const file = join(dirname(realpathSync(fileURLToPath(import.meta.url))), 'worker.js');
  if (!existsSync(file))
    throw new Error(`the demo's worker ${file} is missing (reinstall lanes, or run npm run build in a checkout)`);
  return file;
}

/** Every child not yet closed, so a step that fails half-way leaves none running (they would keep the demo alive). */
const running = new Set<LineChild>();

export async function killRunning(): Promise<void> {
  const left = [...running];
  for (const c of left) c.proc.kill('SIGKILL');
  await Promise.all(left.map((c) => c.exited));
}

/** A child process whose stdout lines can be awaited: the explicit signals the demo synchronizes on. */
export class LineChild {
  readonly proc: ChildProcessWithoutNullStreams;
  out = '';
  err = '';
  readonly exited: Promise<number | null>;
  /** Set synchronously when the child is gone, so a waiter woken by its end sees it (a promise callback would run too late). */
  private gone: string | null = null;
  private wake: (() => void)[] = [];

  constructor(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
    this.proc = spawn(process.execPath, args, { env, cwd });
    running.add(this);
    const poke = () => this.wake.splice(0).forEach((w) => w());
    this.proc.stdout.on('data', (d: Buffer) => {
      this.out += d.toString();
      poke();
    });
    this.proc.stderr.on('data', (d: Buffer) => {
      this.err += d.toString();
      poke();
    });
    // Writing to a child that already exited fails with EPIPE; the waiter reports why it exited.
    this.proc.stdin.on('error', () => undefined);
    this.exited = new Promise((res) => {
      this.proc.on('error', (e) => {
        this.gone ??= `could not run: ${e.message}`;
        running.delete(this);
        poke();
        res(null);
      });
      this.proc.on('close', (code, signal) => {
        this.gone ??= signal ? `was killed by ${signal}` : `exited with code ${code}`;
        running.delete(this);
        poke();
        res(code);
      });
    });
  }

  /** Resolves when stdout matches; rejects, with the child's stderr, when it ends first. */
  async line(pattern: RegExp): Promise<RegExpMatchArray> {
    for (;;) {
      const m = this.out.match(pattern);
      if (m) return m;
      if (this.gone !== null) {
        const err = this.err.trim();
        if (!err) throw new Error(`a worker process ${this.gone} before printing ${pattern} (nothing on stderr)`);
        const said = err.length > 2000 ? `…${err.slice(-2000)}` : err;
        throw new Error(`a worker process ${this.gone} before printing ${pattern}: ${gist(err)}\n${said}`);
      }
      await new Promise<void>((res) => this.wake.push(res));
    }
  }

  send(text: string): void {
    this.proc.stdin.write(text + '\n');
  }
}

/** The line of a stderr that says what went wrong: Node's `XxxError: …` line, else its last line of text. */
function gist(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at ') && !/^Node\.js v/.test(l));
  return lines.find((l) => /^\w*(Error|Exception)\b/.test(l)) ?? lines.at(-1) ?? '';
}
