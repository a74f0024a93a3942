import { test } from 'node:test';
import assert from 'node:assert/strict';
import stringWidth from 'string-width';
import { ADAPTERS } from '../../src/agents/index.js';
import { helpText, overview } from '../../src/cli/help.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { lanes, lanesEnv } from '../helpers/env.js';

// Issue 47, item 5: every usage line names every option a person passes, every help page fits
// 60, 80 and 120 columns, and `lanes hook --help` lists each agent's events on a line of its own.

const WIDTHS = [60, 80, 120];

/** Lines wider than `width`, but for one unbreakable token (a URL) that no wrap could help. */
function overWidth(text: string, width: number): string[] {
  return text.split('\n').filter((l) => stringWidth(l) > width && /\s/.test(l.trim()));
}

test('every usage line lists every option of its command (those lanes passes itself aside)', async () => {
  const short: string[] = [];
  for (const entry of COMMANDS) {
    const { command } = await entry.load();
    for (const [key, option] of Object.entries(command.options)) {
      if (option.internal) continue;
      if (!new RegExp(`--${key}(?![a-z-])`).test(command.usage)) short.push(`${command.name}: --${key}`);
    }
  }
  assert.deepEqual(short, [], 'options missing from their usage line');
});

test('every help page fits 60, 80 and 120 columns: rendered here, and through the binary at COLUMNS', async () => {
  for (const width of WIDTHS) {
    assert.deepEqual(overWidth(overview(width), width), [], `lanes --help at ${width}`);
    for (const entry of COMMANDS) {
      const { command } = await entry.load();
      assert.deepEqual(overWidth(helpText(command, width), width), [], `lanes ${entry.name} --help at ${width}`);
    }
  }
  // The binary reads the width from COLUMNS in a pipe (a terminal's own width is test/cli/columns-tmux).
  const env = lanesEnv();
  for (const width of [60, 120]) {
    const pages = await Promise.all(
      COMMANDS.map((c) => lanes([c.name, '--help'], { env: { ...env, COLUMNS: String(width) } })),
    );
    pages.forEach((r, n) => {
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(overWidth(r.stdout, width), [], `lanes ${COMMANDS[n]!.name} --help at COLUMNS=${width}`);
    });
  }
});

test('lanes hook --help lists the events of each agent on a line of its own, at any width', async () => {
  for (const width of WIDTHS) {
    const page = (await lanes(['hook', '--help'], { env: { ...lanesEnv(), COLUMNS: String(width) } })).stdout;
    const lines = page.split('\n');
    for (const adapter of Object.values(ADAPTERS)) {
      const at = lines.findIndex((l) => l.startsWith(`  ${adapter.name}`) && /^ {2}\S[^:]*:/.test(l));
      assert.ok(at >= 0, `${adapter.name} starts a line of its own at ${width}:\n${page}`);
      // Its lines: the first and those hanging under it, up to the next agent's.
      const own = [lines[at]!];
      for (const l of lines.slice(at + 1)) {
        if (!/^ {4}\S/.test(l)) break;
        own.push(l);
      }
      const events = own
        .join(' ')
        .replace(/^[^:]*:/, '')
        .trim()
        .split(/\s+/);
      assert.deepEqual(events, adapter.events, `${adapter.name}'s events, all on its lines, at ${width}`);
    }
  }
});
