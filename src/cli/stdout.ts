// Standard output for a reader that may go away (`lanes ls | head -3`, `lanes log --follow | grep -m1 …`):
// once the pipe is closed, writes are dropped and `gone` runs once (the runner treats it like
// Ctrl-C: a follower stops), instead of an unhandled EPIPE with a stack trace.
// process.stdout is touched only at the first write: on a pipe, setting the stream up loads net
// and streams (~2–3 ms), and `lanes hook` writes its answer with writeSync in every tool call.

export interface PipeSafeOut {
  write(text: string): void;
  /** Resolves when the stream has written out what it buffered (or the reader went away). */
  drained(): Promise<void>;
  dispose(): void;
}

export function pipeSafeStdout(gone: () => void = () => undefined): PipeSafeOut {
  let closed = false;
  let listening = false;
  const onError = (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    if (!closed) {
      closed = true;
      gone();
    }
  };
  return {
    write(text) {
      if (closed) return;
      if (!listening) {
        listening = true;
        process.stdout.on('error', onError);
      }
      process.stdout.write(text);
    },
    drained() {
      // Pipes are written synchronously on Linux; on macOS (and to a socket) they buffer.
      if (closed || !listening || !process.stdout.writableNeedDrain) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          process.stdout.removeListener('drain', done);
          process.stdout.removeListener('close', done);
          process.stdout.removeListener('error', done);
          resolve();
        };
        process.stdout.once('drain', done);
        process.stdout.once('close', done);
        process.stdout.once('error', done);
      });
    },
    dispose() {
      if (!listening) return;
      // Still listening while writes already made are flushed; a late EPIPE is then harmless.
      process.stdout.removeListener('error', onError);
      if (!process.stdout.listeners('error').includes(ignoreEpipe)) process.stdout.on('error', ignoreEpipe);
    },
  };
}

function ignoreEpipe(e: NodeJS.ErrnoException): void {
  if (e.code !== 'EPIPE') throw e;
}
