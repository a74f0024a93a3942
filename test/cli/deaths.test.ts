import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp, watching } from '../helpers/env.js';
import { receiver } from '../notify/receiver.js';

// Issue 45, items 1 and 2: every death is told, when it happens and for the whole window. An agent
// killed under lanes new's wrapper is recorded (session.died, with what was saved) and notified
// within 5 s by the wrapper; a wrapper killed with its agent is seen by the per-host watcher
// (lanes watch, started on demand) within 10 s with no command run; the morning report reads the
// deaths from the journal, so gc's reap ending a dead session later loses none.

interface Listed {
  id: string;
  owner: { pid: number };
}

async function world() {
  const repo = gitRepo();
  const hook = await receiver();
  const config = join(tmp('lanes-cfg-'), 'config.toml');
  writeFileSync(config, `[notify]\ndesktop = false\nwebhook = "${hook.url}"\nevents = ["died"]\n`);
  const env = watching({ ...lanesEnv(), LANES_CONFIG: config, LANES_NOTIFY_BACKOFF_MS: '20' });
  return { repo, env, opts: { env, cwd: repo }, hook };
}

/** The agent of a run: the wrapper's child that is not lanes' watcher. */
function agentOf(wrapper: number): number {
  const kids = readFileSync(`/proc/${wrapper}/task/${wrapper}/children`, 'utf8').trim().split(/\s+/).map(Number);
  const agent = kids.find((k) => !readFileSync(`/proc/${k}/cmdline`, 'utf8').includes('watch'));
  assert.ok(agent, `the wrapper ${wrapper} runs an agent`);
  return agent;
}

async function deaths(opts: { env: Record<string, string>; cwd: string }, n: number, withinMs: number) {
  const t0 = Date.now();
  for (;;) {
    const out = (await lanes(['log', '--json', '--kind', 'session.died'], opts)).stdout.trim();
    const found = out
      ? out.split('\n').map((l) => JSON.parse(l) as { session: string; details: Record<string, unknown> })
      : [];
    if (found.length >= n) return { found, ms: Date.now() - t0 };
    if (Date.now() - t0 > withinMs)
      throw new Error(`${n} death(s) expected within ${withinMs} ms, ${found.length} journaled`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The working directories of this world's watchers (lanes watch processes with its LANES_HOME). */
function watcherDirs(home: string): string[] {
  const dirs: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd.at(-2) !== 'watch' && cmd.at(-1) !== 'watch') continue;
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`LANES_HOME=${home}`)) continue;
      dirs.push(readlinkSync(`/proc/${pid}/cwd`));
    } catch {
      // gone meanwhile
    }
  }
  return dirs;
}

const start = async (opts: { env: Record<string, string>; cwd: string }, ticket: string, cmd: string) => {
  const r = await lanes(['new', ticket, '--background', '--json', '--', 'bash', '-c', cmd], opts);
  assert.equal(r.code, 0, r.stderr);
  const id = (JSON.parse(r.stdout) as { session: string }).session;
  const ls = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as Listed[];
  return { id, wrapper: ls.find((s) => s.id === id)!.owner.pid };
};

test('a killed agent is a death in the report for the whole window, whatever ended it later, and is told within 5 s', async () => {
  const { opts, hook } = await world();
  // 1. The agent alone killed: its wrapper records the death with the snapshot it took, and tells.
  const a = await start(opts, 'SHOP-10', 'echo x > x.txt; exec sleep 600');
  await new Promise((r) => setTimeout(r, 300)); // the agent has written x.txt (exec: the agent is sleep)
  process.kill(agentOf(a.wrapper), 'SIGKILL');
  const first = await deaths(opts, 1, 5000);
  assert.equal(first.found[0]!.session, a.id);
  assert.equal(first.found[0]!.details['how'], 'killed by SIGKILL');
  assert.match(String(first.found[0]!.details['snapshot']), new RegExp(`refs/lanes/snapshots/${a.id}/1`));
  const [told] = await hook.count(1, 5000);
  assert.match(told!.body.text ?? '', /died: killed by SIGKILL; its work is saved in refs\/lanes\/snapshots/);
  assert.match(told!.body.text ?? '', /lanes new SHOP-10 --resume/);

  // 2. The wrapper killed with its agent: the watcher sees it within 10 s, no command run meanwhile.
  const b = await start(opts, 'SHOP-11', 'exec sleep 600');
  const agentB = agentOf(b.wrapper);
  process.kill(b.wrapper, 'SIGKILL');
  process.kill(agentB, 'SIGKILL');
  const second = await deaths(opts, 2, 10_000);
  assert.ok(second.ms < 10_000, `seen after ${second.ms} ms`);
  // The watcher a run started does not sit in that run's worktree: it would keep gc --worktrees
  // from removing it for as long as it lives ("a process works inside it").
  const dirs = watcherDirs(opts.env['LANES_HOME']!);
  assert.ok(dirs.length > 0, 'a watcher runs');
  for (const d of dirs) assert.ok(!d.includes('.lanes/'), `the watcher works in ${d}`);
  await hook.count(2, 10_000);

  // 3. The reap ends the dead session later: the report still tells both deaths.
  await new Promise((r) => setTimeout(r, 2100));
  await lanes(['claims'], { ...opts, env: { ...opts.env, LANES_GC_AFTER_MS: '2000' } });
  const ls = JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as (Listed & { state: string })[];
  assert.deepEqual(
    ls.map((s) => s.state),
    ['ended', 'ended'],
    'both ended by now',
  );
  const report = JSON.parse((await lanes(['report', '--json'], opts)).stdout) as {
    counts: { died: number };
    died: { session: { id: string }; why: string; continue: string }[];
    tickets: { ticket: string; items: { kind: string }[] }[];
  };
  assert.equal(report.counts.died, 2);
  assert.deepEqual(
    report.died.map((d) => `${d.session.id} ${d.continue}`).sort(),
    [`${a.id} lanes new SHOP-10 --resume`, `${b.id} lanes new SHOP-11 --resume`].sort(),
  );
  assert.ok(report.tickets.find((t) => t.ticket === 'SHOP-10')?.items.some((i) => i.kind === 'died'));
  // lanes ls says died, not ended.
  const text = (await lanes(['ls', '--all'], { ...opts, env: { ...opts.env, COLUMNS: '200' } })).stdout;
  assert.equal(text.match(/\bdied\b/g)?.length, 2, text);
});

test('a stop, a clean exit and a failing plain command are no deaths; a failing agent is', async () => {
  const { opts } = await world();
  const stopped = await start(opts, 'SHOP-12', 'exec sleep 600');
  assert.equal((await lanes(['stop', stopped.id], opts)).code, 0);
  const clean = await lanes(['start', '--', 'true'], opts);
  assert.equal(clean.code, 0);
  const failing = await lanes(['start', '--', 'false'], opts);
  assert.equal(failing.code, 1);
  const agent = await lanes(['start', '--agent', 'codex', '--', 'sh', '-c', 'exit 3'], opts);
  assert.equal(agent.code, 3);
  const { found } = await deaths(opts, 1, 5000);
  assert.equal(found.length, 1);
  assert.equal(found[0]!.details['how'], 'exited with code 3');
});
