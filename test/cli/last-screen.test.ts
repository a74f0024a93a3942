import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { needs } from '../helpers/needs.js';
import { tmuxMissing } from '../helpers/tmux.js';

// Issue 45, item 5: the last screen is kept. An agent lanes new started in tmux prints, then dies:
// its pane closes at once, but what it showed is in its pane log (private, bounded), which the
// report names and `lanes attach` of the dead session shows.

async function until(what: string, ok: () => Promise<boolean>, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; !(await ok());) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test(
  'an agent that dies in tmux leaves its last screen: named by the report, shown by lanes attach, bounded',
  { skip: needs('tmux', tmuxMissing) },
  async () => {
    const repo = gitRepo();
    const env: Record<string, string> = { ...lanesEnv(), TMUX_TMPDIR: tmp('lanes-tmux-') };
    delete env['TMUX'];
    const opts = { env, cwd: repo };
    // 6 MiB of output, then its last words, then it crashes.
    const agent = "head -c 6291456 /dev/zero | tr '\\\\0' x; echo; echo 'panic: LAST-WORDS-42'; sleep 1; exit 3";
    const r = await lanes(['new', 'SHOP-1', '--agent', 'codex', '--json', '--', 'sh', '-c', agent], opts);
    assert.equal(r.code, 0, r.stderr);
    const id = (JSON.parse(r.stdout) as { session: string }).session;
    await until('it died', async () =>
      (JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as { id: string; state: string }[]).some(
        (s) => s.id === id && s.state === 'ended',
      ),
    );
    const log = join(env['LANES_HOME']!, 'logs', `${id}.pane.log`);
    await until('the log has its last words', async () => readFileSync(log, 'utf8').includes('LAST-WORDS-42'));
    assert.equal(statSync(log).mode & 0o777, 0o600);
    assert.ok(statSync(log).size <= 4 * 1024 * 1024, `bounded: ${statSync(log).size} bytes`);
    const shown = await lanes(['attach', id], opts);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stderr, /died \(exited with code 3\); its last screen/);
    assert.match(shown.stdout, /panic: LAST-WORDS-42/);
    const report = JSON.parse((await lanes(['report', '--json'], opts)).stdout) as {
      died: { lastScreen: string | null }[];
    };
    assert.equal(report.died[0]?.lastScreen, log);
    const text = (await lanes(['report'], { ...opts, env: { ...env, COLUMNS: '300' } })).stdout;
    assert.match(text, new RegExp(`its last screen: lanes attach ${id}`));
  },
);
