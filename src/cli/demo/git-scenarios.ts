import { execFileSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Lanes } from '../../index.js';
import { LineChild } from './child.js';
import type { Check, World } from './scenarios.js';

// The two incidents of git: the index sweep (one worktree, one index, a plain `git commit` takes
// another session's staged files) and the stale pre-reboot save sweep (a save-everything loop
// publishes an older copy of another session's work). Each reproduced without lanes first.

const git = (world: World, cwd: string, ...args: string[]): string =>
  execFileSync(
    'git',
    ['-c', 'user.name=demo', '-c', 'user.email=demo@lanes.invalid', '-c', 'commit.gpgsign=false', ...args],
    { cwd, env: world.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );

const tryGit = (world: World, cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) => {
  try {
    return { ok: true, out: git({ ...world, env }, cwd, ...args) };
  } catch (e) {
    return { ok: false, out: String((e as { stderr?: unknown }).stderr ?? e) };
  }
};

/** A session owned by a process of its own (an agent), not by the demo: the demo's git commands are a person's. */
async function agentSession(
  world: World,
  label: string,
  agent: string,
  extra: { ticket?: string; join?: boolean; newWorktree?: object } = {},
) {
  const owner = new LineChild(['-e', 'console.log("ready"); setInterval(() => {}, 1000)'], world.env, world.repo);
  await owner.line(/ready/);
  const s = await world.lanes.sessions.start({ pid: owner.proc.pid!, label, agent, ...extra });
  return { s, owner };
}

const committed = (world: World, rev = 'HEAD') =>
  git(world, world.repo, 'show', '--name-only', '--format=', rev).trim().split('\n').filter(Boolean).sort();

export async function indexSweep(world: World): Promise<Check[]> {
  world.say('2. Git index sweep: two sessions in one worktree share one index.');
  const checks: Check[] = [];
  const d = await agentSession(world, 'agent-d', 'codex');
  const e = await agentSession(world, 'agent-e', 'claude-code');
  const as = (id: string) => ({ ...world.env, LANES_SESSION: id });
  for (const f of ['README.md', 'docs.md', 'a.txt']) writeFileSync(join(world.repo, f), `${f}, changed\n`);
  const stage = () => {
    git({ ...world, env: as(d.s.id) }, world.repo, 'add', 'README.md', 'docs.md'); // agent-d pauses for approval
    git({ ...world, env: as(e.s.id) }, world.repo, 'add', 'a.txt');
  };
  stage();
  git({ ...world, env: as(e.s.id) }, world.repo, 'commit', '-q', '-m', "agent-e's fix");
  const swept = committed(world);
  world.say(
    `   plain git: agent-e's commit took ${swept.length} files: ${swept.join(', ')} (agent-d staged two of them)`,
  );
  checks.push({
    name: 'the index sweep reproduces without lanes',
    ok: swept.length === 3,
    detail: swept.join(', '),
  });
  git(world, world.repo, 'reset', '-q', '--soft', 'HEAD~1');
  const eLanes = await openAs(world, e.s.id);
  try {
    const r = await eLanes.commit(['a.txt'], "agent-e's fix");
    const only = committed(world, r.commit);
    const still = git(world, world.repo, 'diff', '--cached', '--name-only').trim().split('\n').sort();
    world.say(`   lanes commit -- a.txt: committed ${only.join(', ')}; agent-d's ${still.join(', ')} still staged`);
    checks.push({
      name: 'lanes commit takes exactly the named paths',
      ok: only.join() === 'a.txt' && still.join() === 'README.md,docs.md',
      detail: `${only.join(', ')} committed; ${still.join(', ')} staged`,
    });
  } finally {
    await eLanes.close();
  }
  git(world, world.repo, 'reset', '-q', '--soft', 'HEAD~1');
  await world.lanes.guard.install({ lanesCommand: `"${process.execPath}" "${resolve(process.argv[1] ?? 'lanes')}"` });
  const before = git(world, world.repo, 'rev-parse', 'HEAD').trim();
  const refused = tryGit(world, world.repo, as(e.s.id), 'commit', '-q', '-m', "agent-e's fix");
  const after = git(world, world.repo, 'rev-parse', 'HEAD').trim();
  const staged = git(world, world.repo, 'diff', '--cached', '--name-only').trim().split('\n').sort();
  world.say(
    `   with lanes guard install: ${refused.ok ? 'committed!' : `plain git commit refused: ${firstLine(refused.out)}`}`,
  );
  checks.push({
    name: 'the guard refuses a plain git commit from a shared index, and the index stays as it was',
    ok: !refused.ok && before === after && staged.join() === 'README.md,a.txt,docs.md',
    detail: refused.ok ? 'committed' : `${staged.join(', ')} still staged`,
  });
  await world.lanes.guard.uninstall();
  git(world, world.repo, 'reset', '-q');
  git(world, world.repo, 'clean', '-fq', '--', 'README.md', 'docs.md', 'a.txt');
  for (const x of [d, e]) {
    await world.lanes.sessions.end(x.s.id, { reason: 'demo step done', forceLive: true, by: 'lanes demo' });
    x.owner.proc.kill('SIGKILL');
  }
  return checks;
}

export async function staleSaveSweep(world: World): Promise<Check[]> {
  world.say('5. Pre-reboot save sweep: two copies of one ticket, one of them stale.');
  const checks: Check[] = [];
  // agent-b started first and died after an hour; agent-a works beside it on the same ticket.
  const b = await agentSession(world, 'agent-b', 'codex', { ticket: 'SHOP-8', newWorktree: {} });
  const a = await agentSession(world, 'agent-a', 'claude-code', { ticket: 'SHOP-8', join: true, newWorktree: {} });
  const [bw, aw] = [b.s.worktree!, a.s.worktree!];
  writeFileSync(join(bw, 'job.txt'), 'hour 1 of 8\n');
  const hourAgo = Date.now() / 1000 - 3600;
  utimesSync(join(bw, 'job.txt'), hourAgo, hourAgo);
  b.owner.proc.kill('SIGKILL');
  await b.owner.exited;
  writeFileSync(join(aw, 'job.txt'), 'all 8 hours, complete\n');
  const main = git(world, world.repo, 'rev-parse', 'main').trim();
  // Without lanes: "save everything uncommitted" commits each worktree and publishes it to main, in turn.
  for (const wt of [aw, bw]) {
    git(world, wt, 'add', '-A');
    git(world, wt, 'commit', '-q', '-m', 'save before reboot');
    git(world, world.repo, 'update-ref', 'refs/heads/main', git(world, wt, 'rev-parse', 'HEAD').trim());
  }
  const published = git(world, world.repo, 'show', 'main:job.txt').trim();
  world.say(`   a save-everything loop: main now says "${published}" (agent-b's stale copy won)`);
  checks.push({
    name: 'the stale save sweep reproduces without lanes',
    ok: published === 'hour 1 of 8',
    detail: published,
  });
  git(world, world.repo, 'update-ref', 'refs/heads/main', main);
  for (const wt of [aw, bw]) git(world, wt, 'reset', '-q', 'HEAD~1');
  const report = await world.lanes.sweep();
  const kinds = report.flags.map((f) => f.kind).sort();
  const unmoved = git(world, world.repo, 'rev-parse', 'main').trim() === main;
  world.say(
    `   lanes sweep: flags ${kinds.map((k) => (k === 'stale' ? 'STALE COPY' : k.toUpperCase())).join(' and ')}; ${report.items.filter((i) => i.snapshot).length} snapshots to private refs; main ${unmoved ? 'untouched' : 'MOVED'}`,
  );
  checks.push({
    name: 'lanes sweep flags the collision and the stale copy and publishes nothing',
    ok: kinds.join() === 'collision,stale' && unmoved,
    detail: `${kinds.join(', ')}; main ${unmoved ? 'untouched' : 'moved'}`,
  });
  a.owner.proc.kill('SIGKILL');
  return checks;
}

async function openAs(world: World, session: string): Promise<Lanes> {
  const { openLanes } = await import('../../index.js');
  const store = world.env['LANES_STORE'];
  return openLanes({ ...(store ? { store } : {}), env: world.env, cwd: world.repo, session, notice: false });
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.includes('refusing')) ?? text.split('\n')[0] ?? '';
  return line.replace(/^lanes: error: lanes guard: /, '').split(': session ')[0]!;
}
