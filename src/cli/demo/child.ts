import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join } from 'node:path';

/** dist/worker.js, next to the running dist/cli.cjs. */
export function workerPath(): string {
  return join(dirname(process.argv[1] ?? '.'), 'worker.js');
}

/** A child process whose stdout lines can be awaited: the explicit signals the demo synchronizes on. */
export class LineChild {
  readonly proc: ChildProcessWithoutNullStreams;
  out = '';
  err = '';
  readonly exited: Promise<number | null>;
  private wake: (() => void)[] = [];

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.proc = spawn(process.execPath, args, { env });
    const poke = () => this.wake.splice(0).forEach((w) => w());
    this.proc.stdout.on('data', (d: Buffer) => { this.out += d.toString(); poke(); });
    this.proc.stderr.on('data', (d: Buffer) => { this.err += d.toString(); poke(); });
    this.exited = new Promise((res) => this.proc.on('close', (code) => { poke(); res(code); }));
  }

  async line(pattern: RegExp): Promise<RegExpMatchArray> {
    let done = false;
    void this.exited.then(() => { done = true; });
    for (;;) {
      const m = this.out.match(pattern);
      if (m) return m;
      if (done) throw new Error(`worker exited before printing ${pattern}: ${this.err.trim()}`);
      await new Promise<void>((res) => this.wake.push(res));
    }
  }

  send(text: string): void {
    this.proc.stdin.write(text + '\n');
  }
}
