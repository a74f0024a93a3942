import { createServer } from 'node:http';

// The person's webhook, as lanes' [notify] webhook: every body it was sent, in order.
export async function webhook(t: { after(fn: () => void): void }): Promise<{ hooks: string; told: string[] }> {
  const told: string[] = [];
  const server = createServer((req, res) => {
    let b = '';
    req.on('data', (d: Buffer) => (b += d.toString()));
    req.on('end', () => {
      told.push(b);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => void server.close());
  const { port } = server.address() as { port: number };
  return { hooks: `http://127.0.0.1:${port}/lanes`, told };
}
