// lanes ui --open: the system's opener is run with the page's URL (token included), and a missing
// opener is said on stderr while the dashboard goes on serving.
import { execFileSync } from 'node:child_process';
import { chmodSync, createReadStream, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanesEnv, tmp } from '../helpers/env.js';
import { http, startUi } from '../helpers/ui.js';

const repo = gitRepo();
const OPENER = process.platform === 'darwin' ? 'open' : 'xdg-open';

test('--open runs the system opener with the URL of the page', async () => {
  const bin = join(tmp(), 'bin');
  mkdirSync(bin);
  // The fake opener writes its argument into a FIFO: the test blocks on reading it (no polling).
  const fifo = join(bin, 'opened');
  execFileSync('mkfifo', [fifo]);
  writeFileSync(join(bin, OPENER), `#!/bin/sh\nprintf '%s' "$1" > '${fifo}'\n`);
  chmodSync(join(bin, OPENER), 0o755);
  const opened = new Promise<string>((resolve, reject) => {
    let text = '';
    createReadStream(fifo, 'utf8')
      .on('data', (d) => (text += String(d)))
      .on('end', () => resolve(text))
      .on('error', reject);
  });
  const env = lanesEnv();
  const ui = await startUi({ ...env, PATH: `${bin}:${env['PATH'] ?? process.env['PATH'] ?? ''}` }, repo, ['--open']);
  try {
    assert.equal(await opened, ui.url, 'opened the URL lanes printed, token and all');
  } finally {
    await ui.stop();
  }
});

test('--open without an opener says so on stderr and still serves', async () => {
  const bin = join(tmp(), 'bin');
  mkdirSync(bin);
  symlinkSync(execFileSync('sh', ['-c', 'command -v git']).toString().trim(), join(bin, 'git'));
  const ui = await startUi({ ...lanesEnv(), PATH: bin }, repo, ['--open']);
  try {
    await ui.child.waitFor(
      new RegExp(`could not open a browser \\(${OPENER}\\); open the URL above`),
      'stderr',
      10_000,
    );
    assert.equal((await http(ui.port, `/?token=${ui.token}`)).status, 200);
  } finally {
    await ui.stop();
  }
});
