import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLanes } from '../../src/index.js';
import type { JournalEntry, JournalKind } from '../../src/index.js';
import { tmp } from '../helpers/env.js';
import { world } from '../helpers/hooks.js';
import { fakeNotifySend, receiver } from './receiver.js';

/** A hook world whose [notify] sends to a stand-in notify-send and a real local webhook. */
export async function setup(events = '["waiting", "finished", "denied", "died"]') {
  const w = world();
  const hookServer = await receiver();
  const desktop = fakeNotifySend();
  const config = join(tmp('lanes-cfg-'), 'config.toml');
  writeFileSync(config, `[notify]\ndesktop = true\nwebhook = "${hookServer.url}"\nevents = ${events}\n`);
  w.env['LANES_CONFIG'] = config;
  w.env['PATH'] = `${desktop.bin}:${w.env['PATH']}`;
  w.env['LANES_NOTIFY_BACKOFF_MS'] = '20';
  return { ...w, hookServer, desktop, config };
}

/** The journal's entries of one kind, once there are `n` of them (the detached delivery writes them). */
export async function journaled(env: Record<string, string>, kind: JournalKind, n: number): Promise<JournalEntry[]> {
  const l = await openLanes({ env, notice: false, session: null });
  try {
    for (const deadline = Date.now() + 30_000; ;) {
      const found = (await l.journal.list({ kinds: [kind] })).filter((e) => e.kind === kind);
      if (found.length >= n) return found;
      if (Date.now() > deadline) throw new Error(`${n} ${kind} entries expected, ${found.length} journaled`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await l.close({ heartbeat: false });
  }
}

/** Whether a `lanes notify deliver` started for this lanes home still runs (its events file is in LANES_HOME/notify until read). */
export function deliveriesRunning(home: string): boolean {
  const out = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout;
  const delivering = out.split('\n').some((l) => /cli\.cjs notify deliver/.test(l));
  return delivering || (existsSync(join(home, 'notify')) && readdirSync(join(home, 'notify')).length > 0);
}
