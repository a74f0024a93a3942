import { execFile } from 'node:child_process';

// A desktop notification through the system's own tool: notify-send (libnotify) on Linux,
// osascript on macOS. The texts go as arguments, never into a script: nothing in a label or an
// agent's message can run.

const TIMEOUT_MS = 5000;

/** The command line that shows one notification on this platform, or null where lanes has none. */
export function desktopCommand(
  title: string,
  body: string,
  platform: NodeJS.Platform = process.platform,
): [string, string[]] | null {
  if (platform === 'darwin')
    return [
      'osascript',
      [
        '-e',
        'on run argv',
        '-e',
        'display notification (item 2 of argv) with title (item 1 of argv)',
        '-e',
        'end run',
        title,
        body,
      ],
    ];
  if (platform === 'linux' || platform === 'freebsd') return ['notify-send', ['--app-name=lanes', '--', title, body]];
  return null;
}

/** Shows it; resolves with null when shown, else why not (the tool missing, failing, or hanging). */
export function showDesktop(title: string, body: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const cmd = desktopCommand(title, body);
  if (!cmd) return Promise.resolve(`no desktop notifications on ${process.platform}`);
  return new Promise((resolve) => {
    execFile(cmd[0], cmd[1], { timeout: TIMEOUT_MS, env }, (err, _out, stderr) => {
      if (!err) return resolve(null);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT')
        return resolve(
          `${cmd[0]} is not installed${cmd[0] === 'notify-send' ? ' (Debian/Ubuntu: apt install libnotify-bin)' : ''}`,
        );
      if (err.killed) return resolve(`${cmd[0]} did not finish within ${TIMEOUT_MS / 1000} s`);
      resolve(`${cmd[0]} failed: ${String(stderr).trim().split('\n')[0] || err.message}`);
    });
  });
}
