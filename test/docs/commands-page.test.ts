import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli/registry.js';
import { ROOT } from '../helpers/env.js';
import { commandsPage } from '../../scripts/docs.js';

// Issue 47, item 2: docs/commands.md is written from the registry and the commands' specs (the
// text of --help): a command, option or description changed without `npm run docs` fails here.

test('docs/commands.md is what npm run docs writes from the registry today', async () => {
  const page = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8');
  assert.ok(page === (await commandsPage()), 'docs/commands.md is stale: run npm run docs and commit it');
  for (const c of COMMANDS) assert.match(page, new RegExp(`^### lanes ${c.name}$`, 'm'), `${c.name} has a section`);
});
