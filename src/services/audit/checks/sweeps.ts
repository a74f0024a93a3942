import { commandLines, gitArgs, simpleCommands } from '../commands.js';
import type { Step } from '../step.js';
import type { Finding } from './finding.js';

// Save-everything sweeps (the third incident): a loop over worktrees, repositories or directories
// that commits, pushes, stashes or copies whatever it finds, with nothing that asks who owns the
// work — a live session's half-done work gets committed and published as if abandoned. The fix:
// `lanes sweep` (it saves only work no live session owns), or a check of the owner before each.

const OVER_WORK =
  /worktree\s+list|find\b.*-name\s+["']?\.git|for\s+\w+\s+in\b.*(\*\/|\/\*|\*|repos|worktrees|projects|dirs|\$\(ls|\$\(find)|os\.walk|glob\(|iglob\(|listdir\(|scandir\(|iterdir\(|readdirSync\(|readdir\(|\.forEach\(|for\s*\(\s*(const|let|var)\s+\w+\s+of\b/;
const OWNER =
  /kill\s+-0|\blsof\b|\bfuser\b|\bpgrep\b|\bowner\b|\.pid\b|\bpid\b|\block\b|\bclaim|lanes\s+(sweep|ls|status|whoami)|\bactive\b|\balive\b|\bin.?use\b/i;
const SAVE = new Set(['commit', 'push', 'stash']);
const COPY = new Set(['cp', 'rsync', 'tar', 'zip']);

function saves(step: Step): string | null {
  for (const line of commandLines(step))
    for (const w of simpleCommands(line)) {
      const g = gitArgs(w);
      if (g && SAVE.has(g[0] ?? '')) return `git ${g[0]}`;
      const head = w[0]!.split('/').pop()!;
      if (COPY.has(head) && (head !== 'cp' || w.some((x) => /^-\w*[rRa]/.test(x)))) return head;
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
