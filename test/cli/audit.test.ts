// `lanes audit` (issue 51) on its labeled corpus (test/fixtures/audit: the three incidents'
// patterns and realistic automation, half of it clean look-alikes; README.md there says why each
// label is what it is): every expected finding and nothing else, case by case, through the library.
// Then through the built CLI: the text report, --markdown, --json, exit codes, bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { auditRepository } from '../../src/index.js';
import { FIXTURES, lanes, lanesEnv, tmp } from '../helpers/env.js';

const CORPUS = join(FIXTURES, 'audit');
const expected = JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as Record<
  string,
  { check: string; file: string; line: number }[]
>;
const key = (f: { check: string; file: string; line: number }) => `${f.check} ${f.file}:${f.line}`;

test('the corpus: every expected finding, no false alarm, in every case', () => {
  const cases = readdirSync(join(CORPUS, 'cases')).sort();
  assert.ok(cases.length >= 36, `${cases.length} cases`);
  assert.deepEqual(cases, Object.keys(expected).sort(), 'every case is labeled, every label has its case');
  const wrong: string[] = [];
  let clean = 0;
  for (const c of cases) {
    const got = auditRepository(join(CORPUS, 'cases', c)).findings.map(key);
    const want = expected[c]!.map(key);
    if (!want.length) clean++;
    for (const m of want.filter((x) => !got.includes(x))) wrong.push(`${c}: missed ${m}`);
    for (const e of got.filter((x) => !want.includes(x))) wrong.push(`${c}: false alarm ${e}`);
  }
  assert.deepEqual(wrong, []);
  assert.ok(clean * 2 >= cases.length, `half the cases are clean look-alikes (${clean} of ${cases.length})`);
});

test('lanes audit through the bin: each check with its evidence and fix, the table, the verdict; exit 3 on findings', async () => {
  const env = lanesEnv();
  const root = join(CORPUS, 'cases', 'incident-obsidian-fixed-meta');
  const text = await lanes(['audit', root], { env });
  assert.equal(text.code, 3, text.stderr);
  assert.match(text.stdout, /^FAIL {2}fixed-path handoffs \(2\)$/m);
  assert.match(
    text.stdout,
    /^ {2}\.claude\/skills\/obsidian-notes\/SKILL\.md:15 {2}~\/\.claude\/temp\/obsidian-meta\.json \(also read at \.claude\/skills\/obsidian-notes\/scripts\/save_note\.py:17\)$/m,
  );
  assert.match(text.stdout, /^ {2}fix: a per-session path: `lanes path NAME`/m);
  assert.match(text.stdout, /^PASS {2}stage, then pause, then commit$/m);
  assert.match(text.stdout, /^CHECK +RESULT +EVIDENCE +FIX$/m);
  assert.match(text.stdout, /^fixed-path-handoff +FAIL +\S+ \+1 +lanes path \/ lanes handoff$/m);
  assert.match(text.stdout, /^verdict: applies$/m);
  assert.match(text.stdout, /^next: fixed-path handoffs: fix \.claude\/skills\/obsidian-notes\/SKILL\.md:15/m);
  const md = await lanes(['audit', root, '--markdown'], { env });
  assert.equal(md.code, 3);
  assert.match(md.stdout, /^## FAIL — fixed-path handoffs \(`fixed-path-handoff`\)$/m);
  assert.match(md.stdout, /^Passed: stage, then pause, then commit, /m);
  assert.doesNotMatch(md.stdout, /^## PASS/m);
  assert.match(md.stdout, /^\| fixed-path handoffs \| FAIL \| `?\.claude/m);
  assert.match(md.stdout, /^\*\*Verdict: applies\.\*\* Next: /m);
  const json = await lanes(['audit', root, '--json'], { env });
  const r = JSON.parse(json.stdout) as { verdict: string; findings: unknown[]; checks: { status: string }[] };
  assert.equal(r.verdict, 'applies');
  assert.equal(r.findings.length, 2);
  assert.equal(r.checks.length, 8);

  // Clean: exit 0, verdict no. Nothing lanes reads: out of scope.
  const clean = await lanes(['audit', join(CORPUS, 'cases', 'obsidian-session-path-clean'), '--json'], { env });
  assert.equal(clean.code, 0, clean.stderr);
  assert.equal((JSON.parse(clean.stdout) as { verdict: string }).verdict, 'no');
  const empty = tmp('lanes-audit-empty-');
  writeFileSync(join(empty, 'notes.txt'), 'nothing to run\n');
  const none = await lanes(['audit', empty], { env });
  assert.equal(none.code, 0);
  assert.match(none.stdout, /^verdict: out of scope$/m);
});

test('lanes audit on careless input: a missing path, a file, an ignored folder, a symlink out, non-ASCII names', async () => {
  const env = lanesEnv();
  const missing = await lanes(['audit', '/nonexistent/lanes-audit'], { env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read \/nonexistent\/lanes-audit: ENOENT/);
  const dir = tmp('lanes-audit-careless-');
  writeFileSync(join(dir, 'a.sh'), 'echo hi\n');
  const file = await lanes(['audit', join(dir, 'a.sh')], { env });
  assert.equal(file.code, 2);
  assert.match(file.stderr, /ENOTDIR/);
  // In a git repository, what git ignores is never read; a symlink to a script outside is not followed.
  execFileSync('git', ['init', '-q', dir]);
  writeFileSync(join(dir, '.gitignore'), 'generated/\n');
  mkdirSync(join(dir, 'generated'));
  writeFileSync(join(dir, 'generated', 'save.sh'), 'git add -A && git commit -m wip\n');
  const outside = tmp('lanes-audit-outside-');
  writeFileSync(join(outside, 'sweep.sh'), 'git add -A\n');
  symlinkSync(join(outside, 'sweep.sh'), join(dir, 'linked.sh'));
  writeFileSync(
    join(dir, 'écrire-données.sh'),
    '#!/bin/sh\necho "x" > /tmp/données-partagées.json\ncat /tmp/données-partagées.json\n',
  );
  const r = JSON.parse((await lanes(['audit', dir, '--json'], { env })).stdout) as {
    findings: { file: string; line: number }[];
  };
  assert.deepEqual(
    r.findings.map((f) => `${f.file}:${f.line}`),
    ['écrire-données.sh:2', 'écrire-données.sh:3'],
  );
});
