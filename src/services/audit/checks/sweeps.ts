import { commandLines, gitArgs, simpleCommands } from '../commands.js';
import type { Step } from '../step.js';
import type { Finding } from './finding.js';

// Save-everything sweeps (the third incident): a loop over worktrees, repositories or directories
// that commits, pushes, stashes or copies whatever it finds, with nothing that asks who owns the
// work — a live session's half-done work gets committed and published as if abandoned. The fix:
// `lanes sweep` (it saves only work no live session owns), or a check of the owner before each.

/** A loop over worktrees, repositories or folders (not over files: `for f in docs/*.md`). */
const OVER_WORK =
  /worktree\s+list|find\b.*-name\s+["']?\.git|find\b.*-type\s+d|for\s+\w+\s+in\b[^;]*(\*\/|\/\s*;|\/["']?\s*;|\brepos\b|\bworktrees\b|\bprojects\b|\$\(ls\s+-d|\$\(find\b[^)]*-type\s+d)|\bls\s+-d\b.*\|\s*while|os\.walk|listdir\(|scandir\(|iterdir\(|readdirSync\(|readdir\(|\b(repos|worktrees|projects|checkouts)\b\s*(\)|:|\.forEach)|of\s+(repos|worktrees|projects|checkouts)\b|in\s+(repos|worktrees|projects|checkouts)\b|glob\([^)]*\*\/|glob\([^)]*\/\*["']/;
/** Something that asks who owns the work before saving it. */
const OWNER =
  /kill\s+-0|\blsof\b|\bfuser\b|\bpgrep\b|\bowner\b|\.pid\b|\bpidfile\b|\bos\.kill\([^)]*,\s*0\)|process\.kill\([^)]*,\s*0\)|\.lock\b|\bflock\b|\bclaims?\b|lanes\s+(sweep|ls|status|whoami|claims)/i;
const SAVE = new Set(['commit', 'push', 'stash']);
const COPY = new Set(['cp', 'rsync', 'tar', 'zip']);

function saves(step: Step): string | null {
  for (const line of commandLines(step))
    for (const w of simpleCommands(line)) {
      const g = gitArgs(w);
      if (g && SAVE.has(g[0] ?? '')) return `git ${g[0]}`;
      const head = w[0]!.split('/').pop()!;
      const recursive =
        head === 'cp'
          ? w.some((x) => /^-\w*[rRa]/.test(x))
          : head === 'tar'
            ? w.some((x) => /^-?\w*c|^--create$/.test(x) && !/x/.test(x))
            : true;
      if (COPY.has(head) && recursive) return head;
    }
  if ((step.lang === 'py' || step.lang === 'js') && /copytree\(|cpSync\([^)]*recursive/.test(step.text))
    return 'a copy of the tree';
  return null;
}

export function saveEverythingSweeps(steps: Step[]): Finding[] {
  const out: Finding[] = [];
  for (const s of steps) {
    if (s.lang === 'prose') continue;
    const what = saves(s);
    if (!what) continue;
    // The loop around it: its header, or the statement itself when the loop is on one line.
    const header = s.loop
      ? steps.find((o) => o.file === s.file && o.line === s.loop)
      : /^\s*(for|while)\b/.test(s.text)
        ? s
        : undefined;
    if (!header || !OVER_WORK.test(header.text)) continue;
    // Anything between the loop's header and this that asks who owns the work.
    const body = steps.filter((o) => o.file === s.file && o.line >= header.line && o.line <= s.line);
    if (body.some((o) => OWNER.test(o.text))) continue;
    out.push({
      check: 'save-everything-sweep',
      file: s.file,
      line: s.line,
      what: `${what} of whatever the loop finds`,
    });
  }
  return out;
}
