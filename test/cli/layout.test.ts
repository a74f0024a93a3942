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
        const out = new Table(['A', 'B', 'C', 'D'], clean, { width, keep: ['A'], drop: ['D'] }).toString();
        for (const l of out.split('\n')) assert.ok(stringWidth(l) <= width, `${stringWidth(l)} > ${width}: ${l}`);
      },
    ),
    { numRuns: 500 },
  );
  assert.equal(shorten('/home/me/projects/shop/src/billing/invoice.ts', 20, 'middle'), '/home/…ng/invoice.ts');
  assert.equal(shorten('PLATFORM-INFRASTRUCTURE', 10), 'PLATFORM-…');
});
