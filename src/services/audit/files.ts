import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditFile } from './step.js';

// Which files of a repository `lanes audit` reads, and as what. In a git work tree: what git
// tracks and what it would (untracked, not ignored), so a vendored or built tree the repository
// ignores is never read; elsewhere a walk that skips dependency and build folders. A file over
// 1 MiB is no script anyone wrote by hand.

const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  'dist',
  'build',
  'vendor',
  '.venv',
  'venv',
  '__pycache__',
  'target',
  '.next',
  'coverage',
]);
const MAX_FILES = 200_000;

export function listFiles(root: string): string[] {
  try {
    const out = execFileSync(
      'git',
      ['-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '.'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    return [...new Set(out.split('\0').filter(Boolean))];
  } catch {
    const out: string[] = [];
    const walk = (dir: string, rel: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (out.length >= MAX_FILES) return;
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name)) walk(join(dir, e.name), r);
        } else if (e.isFile()) out.push(r);
      }
    };
    walk(root, '');
    return out;
  }
}

const AGENT_DOC =
  /(^|\/)(CLAUDE|AGENTS|GEMINI)\.md$|(^|\/)\.claude\/(skills|commands|agents)\/.+\.md$|(^|\/)\.cursor\/rules\/.+\.mdc?$|(^|\/)\.github\/(copilot-instructions\.md|instructions\/.+\.md|prompts\/.+\.md)$|(^|\/)\.opencode\/.+\.md$|(^|\/)\.cursorrules$/;

/** What a file is to the audit (null: not read); `head` is its first bytes, for a script without a suffix. */
export function kindOf(path: string, head: () => string): AuditFile['kind'] | null {
  const name = path.split('/').pop()!;
  if (AGENT_DOC.test(path)) return 'markdown';
  if (/(^|\/)\.github\/workflows\/[^/]+\.ya?ml$/.test(path)) return 'workflow';
  if (name === 'package.json') return 'package-json';
  if (name === 'Makefile' || name === 'GNUmakefile' || name === 'makefile' || name.endsWith('.mk')) return 'makefile';
  if (/\.(sh|bash|zsh|ksh)$/.test(name)) return 'shell';
  if (/\.py$/.test(name)) return 'python';
  if (/\.(m|c)?[jt]s$/.test(name) && !/\.d\.[mc]?ts$|\.min\.js$/.test(name)) return 'js';
  // Husky 9's hooks have no shebang: a file of .husky/ is shell.
  if (/(^|\/)\.husky\/[^/._][^/]*$/.test(path) && !name.includes('.')) return 'shell';
  if (/(^|\/)(\.husky|\.githooks|\.git-hooks|hooks)\/[^/.]+$/.test(path) || !name.includes('.')) {
    const h = head();
    if (/^#!.*\b(ba|z|da|k)?sh\b/.test(h)) return 'shell';
    if (/^#!.*\bpython/.test(h)) return 'python';
    if (/^#!.*\b(node|bun|deno)\b/.test(h)) return 'js';
  }
  return null;
}

export const MAX_BYTES = 1024 * 1024;
export const sizeOf = (file: string): number => statSync(file).size;

/** Tests, benchmarks and their fixtures (audit.ts reads only the shared surfaces there). */
export const isTestCode = (path: string): boolean =>
  /(^|\/)(tests?|__tests__|specs?|bench|benchmarks?|fixtures|e2e)\/|\.(test|spec)\.[cm]?[jt]sx?$|(^|\/)(test_[^/]*|[^/]*_test|conftest)\.py$/.test(
    path,
  );

/** Samples a test reads (never run by anything): not audited at all. */
export const isFixture = (path: string): boolean => /(^|\/)(fixtures|testdata|__fixtures__|__snapshots__)\//.test(path);

/** Built or vendored code, whoever commits it: no one's automation. */
export const isGenerated = (path: string): boolean =>
  /(^|\/)(dist|build|out|vendor|node_modules|third_party|\.next|coverage)\/|\.(min|bundle)\.[cm]?js$/.test(path);

/** Where `root` is inside its git repository (`.claude/`), or '' (its top, or no repository). */
export function repoPrefix(root: string): string {
  try {
    return execFileSync('git', ['-C', root, 'rev-parse', '--show-prefix'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return '';
  }
}
