import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import wrapAnsi from 'wrap-ansi';
import { shorten, wrap } from '../../src/cli/layout.js';
import { Table } from '../../src/cli/output.js';
import stringWidth from 'string-width';

// layout.ts wraps plain ASCII itself (wrap-ansi measures every word, too slow for a report of
// thousands of lines) and must wrap exactly as wrap-ansi does; tables never exceed the width.

test('plain ASCII wraps exactly as wrap-ansi (hard, trimmed), at any width', () => {
  const word = fc.stringMatching(/^[!-~]{1,30}$/);
  const text = fc.array(fc.tuple(word, fc.constantFrom(' ', '  ', '   ')), { minLength: 1, maxLength: 40 }).map((ws) =>
    ws
      .map(([w, s]) => w + s)
      .join('')
      .trim(),
  );
  fc.assert(
    fc.property(text, fc.integer({ min: 10, max: 120 }), (t, width) => {
      // A paragraph opening with a bullet hangs its lines past it (tested below): not wrap-ansi's.
      fc.pre(!/^[-*] /.test(t));
      assert.equal(wrap(t, width), wrapAnsi(t, width, { hard: true, trim: true }));
    }),
    { numRuns: 2000 },
  );
});

test('a table fits any width, whatever its cells (non-ASCII, long, colour), and shortens with an ellipsis', () => {
  const cell = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.constant('überlange 🚀 ünïcödé 日本語のテキスト'),
    fc.constant('\x1b[32mlive\x1b[39m'),
  );
  fc.assert(
    fc.property(
      fc.array(fc.array(cell, { minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
      fc.integer({ min: 40, max: 100 }),
      (rows, width) => {
        const clean = rows.map((r) => r.map((c) => c.replace(/[\n\r\t\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]/g, '')));
        for (const fit of [
          { keep: ['A'], drop: ['D'] },
          // Wrapped and path columns, and one spared: still never wider, however narrow.
          { keep: ['A'], spare: ['D'], shorten: { C: 'path' as const }, wrap: { B: 3 } },
        ]) {
          const out = new Table(['A', 'B', 'C', 'D'], clean, { width, ...fit }).toString();
          for (const l of out.split('\n')) assert.ok(stringWidth(l) <= width, `${stringWidth(l)} > ${width}: ${l}`);
        }
      },
    ),
    { numRuns: 500 },
  );
  assert.equal(shorten('/home/me/projects/shop/src/billing/invoice.ts', 20, 'middle'), '/home/…ng/invoice.ts');
  assert.equal(shorten('PLATFORM-INFRASTRUCTURE', 10), 'PLATFORM-…');
});

test('an indented paragraph or a list item keeps its indentation, its lines hanging under its text', () => {
  const text =
    'Events:\n  claude-code: session-start pre-tool-use post-tool-use stop\n- one two three four five six\nafter';
  assert.equal(
    wrap(text, 30),
    [
      'Events:',
      '  claude-code: session-start',
      '    pre-tool-use post-tool-use',
      '    stop',
      // A source line after a list item continues it (reflow), under its text.
      '- one two three four five six',
      '  after',
    ].join('\n'),
  );
  assert.equal(wrap('- alpha beta gamma delta epsilon', 20), '- alpha beta gamma\n  delta epsilon');
});

test('paths keep their last parts; wrapped columns keep every word; spare columns go before a cut', () => {
  assert.equal(shorten('/tmp/cw/shop.lanes/shop-1', 20, 'path'), '…/shop.lanes/shop-1');
  assert.equal(shorten('/tmp/cw/shop.lanes/shop-1', 12, 'path'), '…/shop-1');
  assert.equal(shorten('/tmp/cw/shop.lanes/shop-1', 6, 'path'), '…hop-1', 'not even the last part: its end');
  const head = ['ID', 'NOTE', 'PATH', 'CLAIMS'];
  const rows = [['s-1', 'a note', '/home/me/src/shop.lanes/shop-1', 'ticket:SHOP-1 path:src/billing/ port:28715']];
  const fit = { keep: ['ID'], spare: ['NOTE'], shorten: { PATH: 'path' as const }, wrap: { CLAIMS: 3 } };
  // Wide enough for the floors with NOTE left out: the path by its last two parts, each claim whole.
  // Without colour (picocolors turns it on under CI=1; the headers would be bold).
  const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');
  const t = plain(new Table(head, rows, { ...fit, width: 48 }).toString()).split('\n');
  assert.deepEqual(t, [
    'ID   PATH                 CLAIMS',
    's-1  …/shop.lanes/shop-1  ticket:SHOP-1',
    '                          path:src/billing/',
    '                          port:28715',
    '',
  ]);
  // Wide enough for everything at its floor: NOTE stays.
  assert.match(plain(new Table(head, rows, { ...fit, width: 60 }).toString()), /^ID +NOTE +PATH +CLAIMS/);
  // More lines than the column has: the last one cut with an ellipsis.
  assert.equal(
    plain(new Table(['C'], [['aaaa bbbb cccc dddd']], { width: 40, wrap: { C: 2 } }).toString()),
    'C\naaaa bbbb cccc dddd\n',
  );
  const cut = plain(
    new Table(['ID', 'C'], [['x'.repeat(30), 'aaaa bbbb cccc dddd eeee ffff']], {
      width: 40,
      keep: ['ID'],
      wrap: { C: 2 },
    }).toString(),
  );
  assert.equal(cut, `ID${' '.repeat(30)}C\n${'x'.repeat(30)}  aaaa\n${' '.repeat(32)}bbbb cc…\n`);
});
