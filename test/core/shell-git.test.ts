import { test } from 'node:test';
import assert from 'node:assert/strict';
import { riskyGitCommands, tokenize } from '../../src/core/shell-git.js';

const verbs = (line: string) => riskyGitCommands(line).map((r) => r.verb);

test('tokenize: quotes, escapes, operators, comments', () => {
  assert.deepEqual(tokenize(`git commit -m 'a && b' && echo "x \\"y\\"" ; ls|wc # git add .`), [
    'git',
    'commit',
    '-m',
    'a && b',
    '&&',
    'echo',
    'x "y"',
    ';',
    'ls',
    '|',
    'wc',
  ]);
});

test('finds the index-changing git commands, and only those', () => {
  assert.deepEqual(verbs("git add -- src/billing && git commit -m 'seat failover'"), ['add', 'commit']);
  assert.deepEqual(verbs('git stash'), ['stash']);
  assert.deepEqual(verbs('git stash pop'), ['stash']);
  assert.deepEqual(verbs('git stash list; git stash show -p'), []);
  assert.deepEqual(verbs('git reset --hard HEAD~1'), ['reset']);
  assert.deepEqual(verbs('git checkout -- src/a.ts'), ['checkout']);
  assert.deepEqual(verbs('git checkout .'), ['checkout']);
  assert.deepEqual(verbs('git checkout -b feature'), []);
  assert.deepEqual(verbs('git restore --staged x'), ['restore']);
  assert.deepEqual(verbs('git status && git diff && git log --oneline | head'), []);
  assert.deepEqual(verbs('echo git commit -m x'), []);
  assert.deepEqual(verbs("grep -r 'git add' ."), []);
});

test('sees through prefixes, global options, sub-shells and sh -c', () => {
  assert.deepEqual(verbs('GIT_AUTHOR_NAME=x git -c user.name=y --no-pager commit -am msg'), ['commit']);
  assert.deepEqual(verbs('sudo env A=1 /usr/bin/git add .'), ['add']);
  assert.deepEqual(verbs('(cd sub && git add x)'), ['add']);
  assert.deepEqual(verbs('echo $(git stash)'), ['stash']);
  assert.deepEqual(verbs(`bash -lc "git commit -m 'x y'"`), ['commit']);
  const [r] = riskyGitCommands('cd ../other && git -C sub add .');
  assert.equal(r?.dir, '../other/sub');
  assert.equal(riskyGitCommands('git -C /abs/path commit')[0]?.dir, '/abs/path');
});
