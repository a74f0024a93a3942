import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { CLI, gitRepo, lanes, lanesEnv, owner } from '../helpers/env.js';
import { openLanes } from '../../src/index.js';

// Issue 44, items 4 and 5. Ending a live session that is not yours is refused (exit 3, the owner
// named, the ways out), at the CLI's end and stop and in the library; --force ends it, journaled.
// Sessions are named by id, label, ticket or tmux name; an ambiguous or unknown name exits 2 with
// the candidates; --session is taken by every command that acts as a session.

function world() {
  const env = lanesEnv();
  const repo = gitRepo();
  return { env, repo, opts: { env, cwd: repo } };
}

interface Shown {
  id: string;
  state: string;
  endReason: string | null;
}
const show = async (opts: { env: Record<string, string>; cwd: string }, id: string) =>
  (JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as Shown[]).find((s) => s.id === id);

test("lanes end of another process's live session is refused, naming its owner; --force ends it, journaled", async () => {
  const { opts } = world();
  const agent = await owner(opts.env);
  const id = (
    await lanes(['start', '--label', 'delta2', '--ticket', 'SHOP-4', '--pid', agent.pid], opts)
  ).stdout.trim();
  const refused = await lanes(['end', 'delta2'], opts);
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(
    refused.stderr,
    new RegExp(`session ${id} \\(delta2, ticket SHOP-4\\) is live: owned by pid ${agent.pid}`),
  );
  assert.match(refused.stderr, /not this process's to end/);
  assert.match(refused.stderr, new RegExp(`lanes end ${id} --force`));
  assert.doesNotMatch(refused.stderr, /lanes stop/, 'no stop for a session lanes did not start');
  assert.equal((await show(opts, id))?.state, 'live');
  const json = await lanes(['end', 'SHOP-4', '--json'], opts);
  assert.equal(json.code, 3);
  assert.equal((JSON.parse(json.stdout) as { error: { code: string } }).error.code, 'E_NOT_YOURS');

  // The library's door: the same rule.
  const lib = await openLanes({ env: opts.env, cwd: opts.cwd, session: null, notice: false });
  await assert.rejects(lib.sessions.end(id), /E_NOT_YOURS|is live: owned by pid/);
  await lib.close();

  const forced = await lanes(['end', id, '--force'], opts);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match((await show(opts, id))?.endReason ?? '', /forced by lanes end --force while live \(owner pid \d+/);
  const log = (await lanes(['log', '--json'], opts)).stdout.trim().split('\n');
  assert.ok(
    log.some((l) => l.includes('"kind":"session.refuse"') && l.includes(id)),
    'the refusal is journaled',
  );
  await agent.kill();
});

test('a shell ends its own session, and a dead one is ended by anyone', async () => {
  const { opts } = world();
  const own = execFileSync(
    'sh',
    [
      '-c',
      `export LANES_SESSION=$("${process.execPath}" "${CLI}" start --label mine) && "${process.execPath}" "${CLI}" end && echo ok`,
    ],
    { env: opts.env, cwd: opts.cwd, encoding: 'utf8' },
  );
  assert.match(own, /ended session s-\w+\nok/);
  const agent = await owner(opts.env);
  const id = (await lanes(['start', '--label', 'gone', '--pid', agent.pid], opts)).stdout.trim();
  await agent.kill();
  const r = await lanes(['end', 'gone'], opts);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await show(opts, id))?.state, 'ended');
});

test('lanes stop signals only a run lanes started; another live session is refused, --force ends it unsignalled', async () => {
  const { opts } = world();
  const person = await owner(opts.env);
  const shell = (await lanes(['start', '--label', 'my-shell', '--pid', person.pid], opts)).stdout.trim();
  const refused = await lanes(['stop', 'my-shell'], opts);
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /lanes stop s-\w+ --force/);
  const forced = await lanes(['stop', 'my-shell', '--force'], opts);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal((await show(opts, shell))?.state, 'ended');
  assert.equal(person.child.proc.exitCode, null, "the person's process was not signalled");
  await person.kill();
  // A run lanes started, by its ticket: asked to exit, ended.
  const run = await lanes(['new', 'SHOP-5', '--label', 'runner', '--background', '--json', '--', 'sleep', '600'], opts);
  assert.equal(run.code, 0, run.stderr);
  const id = (JSON.parse(run.stdout) as { session: string }).session;
  const stopped = await lanes(['stop', 'SHOP-5', '--json'], opts);
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal((JSON.parse(stopped.stdout) as { session: string }).session, id);
  assert.equal((await show(opts, id))?.state, 'ended');
});

test('a live session of another host is refused while its lease runs; --force says its work was not saved', async () => {
  const { opts } = world();
  const there = { ...opts, env: { ...opts.env, LANES_HOST_ID: 'other-host' } };
  const agent = await owner(opts.env);
  const id = (await lanes(['start', '--label', 'far', '--pid', agent.pid], there)).stdout.trim();
  const refused = await lanes(['end', 'far'], opts);
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /on other-host/);
  assert.match(refused.stderr, /end it on other-host, where its work can be saved first/);
  const forced = await lanes(['end', 'far', '--force'], opts);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match((await show(opts, id))?.endReason ?? '', /its worktree is on that host and was not saved from here/);
  await agent.kill();
});

test('names: label, ticket, tmux name; ambiguous and unknown exit 2 with the candidates; --session on commit, land, whoami', async () => {
  const { opts } = world();
  const a = await owner(opts.env);
  const b = await owner(opts.env);
  const one = (await lanes(['start', '--label', 'twin', '--ticket', 'SHOP-7', '--pid', a.pid], opts)).stdout.trim();
  const two = (await lanes(['start', '--label', 'twin', '--pid', b.pid], opts)).stdout.trim();
  const ambiguous = await lanes(['whoami', '--session', 'twin'], opts);
  assert.equal(ambiguous.code, 2, ambiguous.stderr);
  assert.match(
    ambiguous.stderr,
    new RegExp(`"twin" names 2 open sessions: .*${one} \\(twin, SHOP-7\\).*${two} \\(twin\\)`),
  );
  const byTicket = await lanes(['whoami', '--session', 'SHOP-7', '--json'], opts);
  assert.equal(byTicket.code, 0, byTicket.stderr);
  assert.equal((JSON.parse(byTicket.stdout) as { id: string }).id, one);
  const unknown = await lanes(['end', 'SHOP-8'], opts);
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /no session is named "SHOP-8"/);
  assert.match(unknown.stderr, new RegExp(`did you mean ${one} \\(twin, SHOP-7\\)`));
  for (const cmd of [
    ['commit', '-m', 'x', '--session', 'nobody-at-all', '--', 'README.md'],
    ['land', '--session', 'nobody-at-all'],
    ['whoami', '--session', 'nobody-at-all'],
  ]) {
    const r = await lanes(cmd, opts);
    assert.equal(r.code, 2, `${cmd[0]} takes --session and resolves it: ${r.stderr}`);
    assert.match(r.stderr, /no session is named "nobody-at-all"/);
  }
  await a.kill();
  await b.kill();
});
