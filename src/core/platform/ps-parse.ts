import type { ProcessFacts } from './types.js';

// Parsers of what `ps -o pid=,ppid=,stat=,lstart=,command=` and `sysctl -n …` print, kept apart
// from running them so they can be tested against fixtures of real macOS output on any machine.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// pid, ppid, stat (BSD: letters and flags such as `Ss+`, `S<`, `Z`, `U`, `I`), lstart in the C
// locale (`%a %b %e %H:%M:%S %Y`, the day padded with a space: `Sun Mar  1 09:05:03 2026`), then
// the command line, which may hold any character but a newline (spaces, parentheses, `(zsh)`).
// macOS pads stat to 4 and lstart to 28 columns (left-justified), so the command may follow
// several spaces; procps pads neither.
const LINE =
  /^\s*(\d+)\s+(\d+)\s+(\S+)\s+[A-Z][a-z]{2}\s+([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+(\d{4})(?:\s+(.*))?$/;

/**
 * `lstart` as seconds since the epoch. lanes runs ps with TZ=UTC0 and LC_ALL=C, so the date is in
 * UTC with English names; null when it is not such a date.
 */
export function parseLstart(month: string, day: string, h: string, m: string, s: string, year: string): string | null {
  const mi = MONTHS.indexOf(month);
  if (mi < 0) return null;
  const ms = Date.UTC(Number(year), mi, Number(day), Number(h), Number(m), Number(s));
  return Number.isFinite(ms) ? String(ms / 1000) : null;
}

/**
 * The executable's name from a command line: the first word's last path part (`-zsh`, a login
 * shell, is zsh); `(name)`, what BSD ps shows when it cannot read the arguments (a zombie), is name.
 */
export function nameOf(command: string): string {
  const bare = /^\((.*)\)$/.exec(command);
  if (bare) return bare[1]!;
  const first = command.trimStart().split(/\s/, 1)[0] ?? '';
  return first.slice(first.lastIndexOf('/') + 1).replace(/^-/, '');
}

/** Every process line of ps' output; lines that are not one (a header, a warning) are left out. */
export function parsePs(text: string): ProcessFacts[] {
  const out: ProcessFacts[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line.replace(/\r$/, ''));
    if (!m) continue;
    const [, pid, ppid, stat, month, day, h, min, s, year, command = ''] = m;
    const startTime = parseLstart(month!, day!, h!, min!, s!, year!);
    if (startTime === null) continue;
    const cmd = command.trimEnd();
    out.push({
      pid: Number(pid),
      ppid: Number(ppid),
      // BSD and procps both put the state letter first; what follows are flags (s, +, <, N, L, …).
      state: stat!.charAt(0),
      startTime,
      name: nameOf(cmd),
      command: cmd,
    });
  }
  return out;
}

/**
 * The boot identity from sysctl: `kern.bootsessionuuid` (macOS) is a UUID printed as is;
 * `kern.boottime` (FreeBSD, the other BSDs, macOS too) is `{ sec = 1700000000, usec = 123456 } …`.
 */
export function parseBootIdentity(text: string): string | null {
  const t = text.trim();
  const boottime = /sec\s*=\s*(\d+),\s*usec\s*=\s*(\d+)/.exec(t);
  if (boottime) return `boottime:${boottime[1]}.${boottime[2]}`;
  return /^[0-9A-Fa-f-]{16,}$/.test(t) ? t.toUpperCase() : null;
}
