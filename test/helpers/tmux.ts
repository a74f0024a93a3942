import { execFileSync } from 'node:child_process';

/** Why the tests that drive a real tmux cannot run here (null: tmux is installed). For needs('tmux', …). */
export const tmuxMissing = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'pipe' });
    return null;
  } catch {
    return 'tmux is not installed (apt-get install tmux)';
  }
})();
