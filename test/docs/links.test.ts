import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from '../helpers/env.js';

// Issue 47, item 2: the README is the front door (at most 15 KB) and every page it and docs/ link
// to exists, down to the heading an anchor names.

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));
}

test('the README is at most 15 KB', () => {
  const size = readFileSync(join(ROOT, 'README.md')).length;
  assert.ok(size <= 15 * 1024, `README.md is ${size} bytes`);
});

test('every relative link of the README and docs/ reaches a file, and its anchor a heading', () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    const file = join(ROOT, page);
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue; // https:, mailto:
      const [path, hash] = target!.split('#') as [string, string | undefined];
      const to = path ? join(dirname(file), path) : file;
      if (!existsSync(to)) broken.push(`${page}: ${target} (no ${relative(ROOT, to)})`);
      else if (hash && to.endsWith('.md') && !anchorsOf(to).has(hash))
        broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});
