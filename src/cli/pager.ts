// Long output on a terminal goes through a pager, as git does: $PAGER (an empty one or `cat`: none),
// else `less -R`, with LESS=FRX and LV=-c unless set (git's defaults: quit when it fits, keep colours,
// leave the text on screen). Never when stdout is not a terminal (a pipe, a file, lanes top's capture).
import { spawnSync } from 'node:child_process';
import { terminalWidth } from './layout.js';

/** Whether `text` takes more lines than the terminal has (long lines count as the rows they wrap to). */
export function longerThanScreen(text: string, rows: number, columns: number): boolean {
  let used = 0;
  for (const line of text.split('\n')) {
    const width = line.replace(/\x1b\[[0-9;]*m/g, '').length;
    used += Math.max(1, Math.ceil(width / columns));
    if (used >= rows) return true;
  }
  return false;
}

/**
 * Shows `text` through the pager when stdout is a terminal and the text is longer than its screen;
 * false when it did not (the caller prints it). A pager that cannot start is no pager.
 */
export function page(text: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const out = process.stdout;
  if (!out.isTTY) return false;
  if (!longerThanScreen(text, out.rows || 24, terminalWidth(env))) return false;
  const pager = env['PAGER'] ?? 'less -R';
  if (pager.trim() === '' || pager.trim() === 'cat') return false;
  // Through the shell, as git runs $PAGER: it may carry options (`less -S`).
  const r = spawnSync(pager, {
    shell: true,
    input: text,
    stdio: ['pipe', 'inherit', 'inherit'],
    env: { ...env, LESS: env['LESS'] ?? 'FRX', LV: env['LV'] ?? '-c' },
  });
  // EPIPE: the person quit the pager before the end, the text was shown.
  const code = (r.error as NodeJS.ErrnoException | undefined)?.code;
  return !r.error || code === 'EPIPE';
}
