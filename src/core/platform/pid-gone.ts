/**
 * Whether no process has this pid now (one kill(pid, 0), no process started, nothing read). It
 * proves nothing alive (the pid may be another process' by now): a watcher uses it to learn, between
 * full proofs, that a full proof is due at once. EPERM is a process of another user: not gone.
 */
export function pidGone(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
