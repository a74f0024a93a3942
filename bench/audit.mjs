// bench/audit: `lanes audit` on a 10,000-file repository (issue 51, item 2: ≤ 5 s on this
// machine). The repository: the labeled corpus (test/fixtures/audit/cases) copied 20 times into
// its folders (~2,000 files of scripts, skills, Makefiles, workflows), and 8,000 ordinary source
// files beside them (TypeScript and Python modules, Markdown docs, JSON), untracked in a fresh git
// repository as a working copy is. The floor, measured in the same run: git listing the same files
// and Node reading each one (what any audit must at least do). Runs alternate; the median is shown.
// Usage: node bench/audit.mjs [--runs 5] [--files 10000]
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = opt('--runs', 5);
const FILES = opt('--files', 10_000);
const CLI = join(ROOT, 'dist', 'cli.cjs');
const repo = join(scratch('lanes-bench-audit-'), 'repo');
mkdirSync(repo);
execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
const cases = join(ROOT, 'test', 'fixtures', 'audit', 'cases');
const count = (dir) => readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).length;
let files = 0;
for (let i = 0; i < 20; i++) {
  cpSync(cases, join(repo, `tools-${i}`), { recursive: true });
  files = count(repo) - 0;
}
const ts = readFileSync(join(ROOT, 'src', 'services', 'spend', 'spend.ts'), 'utf8');
const py = readFileSync(join(cases, 'incident-session-state-unlocked-clear', 'entire', 'session_state.py'), 'utf8');
for (let i = 0; files < FILES; i++, files++) {
  const dir = join(repo, 'src', `m${Math.floor(i / 100)}`);
  mkdirSync(dir, { recursive: true });
  const kind = i % 4;
  const name = ['ts', 'py', 'md', 'json'][kind];
  const body = kind === 0 ? ts : kind === 1 ? py : kind === 2 ? `# Module ${i}\n\nNotes.\n` : JSON.stringify({ i });
  writeFileSync(join(dir, `f${i}.${name}`), body);
}
const listed = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repo, encoding: 'utf8' })
  .split('\0')
  .filter(Boolean);

const time = (fn) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};
const audit = () => {
  const r = spawnSync(process.execPath, [CLI, 'audit', repo, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 3) throw new Error(`lanes audit exited ${r.status}: ${r.stderr}`);
};
const floor = () => {
  // The floor: a Node process that lists what git lists and reads every file.
  const script = `const {execFileSync}=require('child_process');const {readFileSync}=require('fs');
for (const f of execFileSync('git',['-C',${JSON.stringify(repo)},'ls-files','-co','--exclude-standard','-z'],{encoding:'utf8',maxBuffer:1<<28}).split('\\0').filter(Boolean)) readFileSync(${JSON.stringify(repo)}+'/'+f,'utf8');`;
  const r = spawnSync(process.execPath, ['-e', script]);
  if (r.status !== 0) throw new Error(`floor: ${r.stderr}`);
};
const a = [];
const f = [];
const load = loadavg()[0];
for (let i = 0; i < RUNS; i++) {
  a.push(time(audit));
  f.push(time(floor));
}
const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const findings = JSON.parse(
  spawnSync(process.execPath, [CLI, 'audit', repo, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout,
).findings.length;
console.log(
  `lanes audit of ${listed.length} files (${findings} findings), ${RUNS} runs, load ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}, node ${process.version}\n`,
);
console.log(
  table(
    ['', 'median ms', 'min ms', 'max ms'],
    [
      ['lanes audit', med(a).toFixed(0), Math.min(...a).toFixed(0), Math.max(...a).toFixed(0)],
      ['floor: list + read every file', med(f).toFixed(0), Math.min(...f).toFixed(0), Math.max(...f).toFixed(0)],
    ],
  ),
);
console.log(
  `\nratio to the floor: ${(med(a) / med(f)).toFixed(2)}x; target: ≤ 5,000 ms (${med(a) <= 5000 ? 'met' : 'not met'})`,
);
