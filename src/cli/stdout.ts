// Standard output for a reader that may go away (`lanes ls | head -3`, `lanes log --follow | grep -m1 …`):
// once the pipe is closed, writes are dropped and `gone` runs once (the runner treats it like
// Ctrl-C: a follower stops), instead of an unhandled EPIPE with a stack trace.

export interface PipeSafeOut {
  write(text: string): void;
  dispose(): void;
}

export function pipeSafeStdout(gone: () => void = () => undefined): PipeSafeOut {
  let closed = false;
  const onError = (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    if (!closed) {
      closed = true;
      gone();
    }
  };
  process.stdout.on('error', onError);
  return {
    write(text) {
      if (!closed) process.stdout.write(text);
    },
    dispose() {
      // Still listening while writes already made are flushed; a late EPIPE is then harmless.
      process.stdout.removeListener('error', onError);
      if (!process.stdout.listeners('error').includes(ignoreEpipe)) process.stdout.on('error', ignoreEpipe);
    },
  };
}

function ignoreEpipe(e: NodeJS.ErrnoException): void {
  if (e.code !== 'EPIPE') throw e;
}
