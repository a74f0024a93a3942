import type { Socket } from 'node:net';
import { MessageReader, T } from './wire.js';

/**
 * Runs one simple query on a server connection the broker holds idle, and answers the first column
 * of its first row as text (null for none). The socket's 'data' listener is the caller's again
 * after. An ErrorResponse rejects with its message.
 */
export function simpleQuery(socket: Socket, sql: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const reader = new MessageReader();
    let value: string | null = null;
    let error: Error | null = null;
    const done = (e: Error | null) => {
      socket.removeListener('data', onData);
      socket.removeListener('close', onClose);
      if (e) reject(e);
      else resolve(value);
    };
    const onClose = () => done(new Error('the server closed the connection'));
    const onData = (chunk: Buffer) => {
      for (const m of reader.push(chunk)) {
        if (m.type === 0x44 && value === null) {
          // DataRow: Int16 columns, then per column Int32 length (-1: null) and the bytes.
          const len = m.body.readInt32BE(2);
          value = len < 0 ? null : m.body.subarray(6, 6 + len).toString('utf8');
        } else if (m.type === T.error) {
          error = new Error(m.body.toString('utf8').replace(/\0/g, ' ').trim());
        } else if (m.type === T.readyForQuery) {
          done(error);
        }
      }
    };
    socket.on('data', onData);
    socket.on('close', onClose);
    const text = Buffer.from(`${sql}\0`, 'utf8');
    const head = Buffer.alloc(5);
    head.write('Q', 0, 'latin1');
    head.writeInt32BE(text.length + 4, 1);
    socket.write(Buffer.concat([head, text]));
  });
}
