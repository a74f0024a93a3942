import { closeSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { fixedPathHandoffs } from './checks/handoff.js';
import { stageThenPause } from './checks/staging.js';
import { unlockedClears } from './checks/clears.js';
import { saveEverythingSweeps } from './checks/sweeps.js';
import { surfaces } from './checks/surfaces.js';
import type { Finding } from './checks/finding.js';
import { MAX_BYTES, isFixture, isGenerated, isTestCode, kindOf, listFiles, repoPrefix, sizeOf } from './files.js';
import { readCode } from './read-code.js';
import { readMakefile, readPackageJson, readWorkflow } from './read-config.js';
import { readMarkdown } from './read-markdown.js';
import { readShell } from './read-shell.js';
import type { AuditFile, Step } from './step.js';
import { verdictOf } from './verdict.js';
import type { AuditReport } from './verdict.js';

// `lanes audit [PATH]` (issue 51): every file of the repository's automation and its agents'
// instructions read into steps (read-*.ts), the checks run over all of them together (a handoff is
// one file writing what another reads), and the findings judged (verdict.ts).

/** Whether a line is longer than `max` (a scan of newlines: a regular expression took 0.5 s on 1,000 files). */
function hasLongLine(text: string, max: number): boolean {
  for (let at = 0; at < text.length;) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    if (end - at > max) return true;
    at = end + 1;
  }
  return false;
}

function head(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(128);
    return b.subarray(0, readSync(fd, b, 0, 128, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function stepsOf(f: AuditFile, text: string): Step[] {
  switch (f.kind) {
    case 'shell':
      return readShell(f.path, text);
    case 'python':
      return readCode(f.path, text, 'py');
    case 'js':
      return readCode(f.path, text, 'js');
    case 'makefile':
      return readMakefile(f.path, text);
    case 'package-json':
      return readPackageJson(f.path, text);
    case 'workflow':
      return readWorkflow(f.path, text);
    case 'markdown':
    case 'agent-config':
      return readMarkdown(f.path, text);
  }
}

export function auditRepository(path: string): AuditReport {
  const root = resolve(path);
  let names: string[];
  try {
    if (!statSync(root).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    names = listFiles(root);
  } catch (e) {
    throw new LanesError(
      'E_USAGE',
      `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      {
        hint: 'give the path of a repository or a folder (lanes audit [PATH])',
      },
    );
  }
  const files: AuditFile[] = [];
  const realRoot = realpathSync(root);
  const steps: Step[] = [];
  // Classified by its place in the repository (`lanes audit .claude` still knows a skill), shown
  // relative to what was asked.
  const prefix = repoPrefix(root);
  const readOnce = new Set<string>();
  const skipped: string[] = [];
  for (const name of names.sort()) {
    const full = join(root, name);
    const inRepo = prefix + name;
    let kind: AuditFile['kind'] | null;
    let text: string;
    try {
      kind = isFixture(name) || isGenerated(name) ? null : kindOf(inRepo, () => head(full));
      if (!kind || !statSync(full).isFile()) continue;
      // A symlink to a file outside the repository is not the repository's; one to a file inside
      // (CLAUDE.md → AGENTS.md) is read once.
      const real = realpathSync(full);
      if (!real.startsWith(realRoot + sep) || readOnce.has(real)) continue;
      readOnce.add(real);
      if (sizeOf(full) > MAX_BYTES) {
        skipped.push(name);
        continue;
      }
      text = readFileSync(full, 'utf8');
    } catch {
      continue; // a dangling symlink, a file gone since git listed it, one that cannot be read
    }
    // Minified or generated code (a line longer than any person writes), or a binary (a NUL in its
    // first 8 KB, as git judges), is no one's automation.
    if (hasLongLine(text, 5000) || text.slice(0, 8000).includes('\0')) {
      skipped.push(name);
      continue;
    }
    const f = { path: name, kind };
    files.push(f);
    for (const st of stepsOf(f, text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n'))) steps.push(st);
  }
  // Tests and benchmarks build their own worlds (a temporary repository they stage everything in,
  // a recorded payload naming a /tmp path): only what they share with every other run — a port, a
  // database, a cache, global config — is looked for there.
  const automation = steps.filter((s) => !isTestCode(s.file));
  const all: Finding[] = [
    ...fixedPathHandoffs(automation),
    ...stageThenPause(automation),
    ...unlockedClears(automation),
    ...saveEverythingSweeps(automation),
    ...surfaces(steps),
  ];
  const seen = new Set<string>();
  const findings = all
    .filter((f) => {
      const k = `${f.check}\0${f.file}\0${f.line}`;
      return seen.has(k) ? false : (seen.add(k), true);
    })
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.check.localeCompare(b.check));
  return verdictOf(root, files, findings, skipped);
}
