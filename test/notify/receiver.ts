import { after } from 'node:test';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmp } from '../helpers/env.js';

// The far ends of a notification, real: an HTTP server standing for a Slack-compatible webhook
// (it records each request and answers as told, or holds it), and a notify-send on PATH that
// writes down its arguments.

export interface Received {
  body: { text?: string };
  raw: string;
}

export interface Receiver {
  url: string;
  requests: Received[];
  /** Resolves when `n` requests have arrived; rejects after `timeoutMs` (default 30 s). */
  count(n: number, timeoutMs?: number): Promise<Received[]>;
  /** The status each request is answered with (a 3xx redirects elsewhere); 'hold' keeps it open until release(). */
  answer: number | 'hold';
  release(): void;
}

export async function receiver(): Promise<Receiver> {
  const waiters: { n: number; resolve: (r: Received[]) => void }[] = [];
  const held: ServerResponse[] = [];
  const r: Receiver = {
    url: '',
    requests: [],
    answer: 200,
    count(n, timeoutMs = 30_000) {
      if (r.requests.length >= n) return Promise.resolve(r.requests.slice());
      // Bounded: a notification that never comes fails the test instead of hanging the run.
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${n} webhook request(s) expected within ${timeoutMs} ms, ${r.requests.length} came`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: (got) => {
            clearTimeout(timer);
            resolve(got);
          },
        });
      });
    },
    release() {
      for (const res of held.splice(0)) res.writeHead(200).end('ok');
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString('utf8')));
    req.on('end', () => {
      r.requests.push({ raw, body: JSON.parse(raw) as { text?: string } });
      for (const w of waiters.filter((x) => r.requests.length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(r.requests.slice());
      }
      if (r.answer === 'hold') held.push(res);
      else
        res
          .writeHead(
            r.answer,
            r.answer >= 300 && r.answer < 400 ? { location: 'https://elsewhere.example/hooks/SEKRIT' } : {},
          )
          .end(r.answer === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const address = server.address();
  r.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/services/T000/B000/secret`;
  after(() => {
    r.release();
    server.closeAllConnections();
    server.close();
  });
  return r;
}

/** A directory holding a stand-in notify-send (first on PATH), and the file its calls go to, one JSON argv per line. */
export function fakeNotifySend(): { bin: string; calls: () => string[][] } {
  const bin = tmp('lanes-bin-');
  const log = join(bin, 'calls.jsonl');
  writeFileSync(
    join(bin, 'notify-send'),
    `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`,
  );
  chmodSync(join(bin, 'notify-send'), 0o755);
  return {
    bin,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as string[])
        : [],
  };
}
