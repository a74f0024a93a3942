// `lanes ui` as the tests run it: the real binary on a free port, its URL read from --json.
import { request } from 'node:http';
import { lanesChild } from './env.js';
import type { Child } from './env.js';

export interface RunningUi {
  child: Child;
  url: string;
  origin: string;
  port: number;
  token: string;
  stop(): Promise<void>;
}

export async function startUi(env: Record<string, string>, cwd: string, extra: string[] = []): Promise<RunningUi> {
  const child = lanesChild(['ui', '--json', '--port', '0', ...extra], { env, cwd });
  const [line] = await child.waitFor(/^\{.*"url".*\}$/m, 'stdout', 30_000);
  const { url, port } = JSON.parse(line ?? '') as { url: string; port: number };
  const u = new URL(url);
  return {
    child,
    url,
    origin: u.origin,
    port,
    token: u.searchParams.get('token') ?? '',
    async stop() {
      child.proc.kill('SIGINT');
      await child.exited;
    },
  };
}

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request with exactly the headers given (fetch would not let a test set Host). */
export function http(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; host?: string } = {},
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: options.host ?? '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        timeout: 20_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${path}: no answer within 20 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}
