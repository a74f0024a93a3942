import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nameOf, parseBootIdentity, parsePs } from '../../src/core/platform/ps-parse.js';
import { FIXTURES } from '../helpers/env.js';

// Fixtures of real output formats (test/fixtures/macos/README.md says where each comes from).
const fixture = (name: string) => readFileSync(join(FIXTURES, 'macos', name), 'utf8');

test('macOS ps: every line parsed, lstart as seconds since the epoch (UTC), the state letter first', () => {
  const rows = parsePs(fixture('ps-lstart.txt'));
  assert.deepEqual(
    rows.map((r) => [r.pid, r.ppid, r.state, r.startTime]),
    [
      [1, 0, 'S', '1796030042'],
      [412, 1, 'S', '1796030049'],
      [980, 975, 'S', '1772355903'], // `Sun Mar  1`: the day padded with a space
      [1207, 980, 'S', '1772355941'],
      [1311, 1207, 'Z', '1772355960'], // a zombie: `Z+`
      [2044, 1, 'S', '1796042865'],
      [3021, 1207, 'R', '1796042865'],
      [4100, 1, 'I', '1796042865'], // BSD's idle (sleeping more than 20 s)
      [65432, 3021, 'U', '1798761599'], // uninterruptible, flag `<`
    ],
  );
});

test('macOS ps: command lines with spaces and parentheses are kept whole, without the lstart padding', () => {
  const rows = new Map(parsePs(fixture('ps-lstart.txt')).map((r) => [r.pid, r]));
  assert.equal(rows.get(1)!.command, '/sbin/launchd');
  assert.equal(
    rows.get(2044)!.command,
    '/Applications/Google Chrome.app/Contents/Frameworks/Google Chrome Framework.framework/Versions/131.0.6778.86/Helpers/Google Chrome Helper (Renderer).app/Contents/MacOS/Google Chrome Helper (Renderer) --type=renderer',
  );
  assert.equal(rows.get(65432)!.command, 'weird name (with) ) parens');
  assert.equal(rows.get(3021)!.command, '/bin/sh -c lanes hook claude-code pre-tool-use');
  // Names, for launcher and shell matching: a login shell, a zombie shown as (name), a path.
  assert.deepEqual(
    [980, 1207, 1311, 3021, 412].map((pid) => rows.get(pid)!.name),
    ['zsh', 'node', 'git', 'sh', 'loginwindow'],
  );
});

test('procps ps (the stand-in on Linux): the same columns without padding', () => {
  const rows = parsePs(fixture('procps-lstart.txt'));
  assert.deepEqual(
    rows.map((r) => [r.pid, r.ppid, r.state, r.startTime, r.command]),
    [
      [1, 0, 'S', '1796031895', '/sbin/init'],
      [12268, 12267, 'S', '1796042920', 'bash /dev/fd/3'],
      [12301, 12268, 'Z', '1796042921', '[git] <defunct>'],
    ],
  );
});

test('lines that are not a process (headers, warnings, a bad date) are left out, never misread', () => {
  const text = [
    '  PID  PPID STAT STARTED                      COMMAND',
    'ps: warning: something',
    '  77     1 S    Mon Foo 30 09:14:02 2026     bad month',
    '  78     1 S    Mon Nov 30 09:14:02 2026',
    '',
  ].join('\n');
  assert.deepEqual(
    parsePs(text).map((r) => [r.pid, r.command]),
    [[78, '']],
  );
});

test('nameOf: first word, last path part', () => {
  assert.equal(nameOf('/usr/bin/env FOO=1 lanes start'), 'env');
  assert.equal(nameOf('npx lanes start'), 'npx');
  assert.equal(nameOf(''), '');
});

test('sysctl: kern.bootsessionuuid as is, kern.boottime as its seconds and microseconds, anything else null', () => {
  assert.equal(parseBootIdentity(fixture('sysctl-bootsessionuuid.txt')), '5E1B3C4A-8F2D-4B6E-9C1A-3D7F2E8B9A10');
  assert.equal(parseBootIdentity(fixture('sysctl-boottime.txt')), 'boottime:1796022842.412345');
  assert.equal(parseBootIdentity('sysctl: unknown oid'), null);
  assert.equal(parseBootIdentity(''), null);
});
