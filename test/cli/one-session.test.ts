import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, FIXTURES, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { fixture, hook } from '../helpers/hooks.js';

// Issue 44, item 1: one agent, one session. The agent a lanes run starts (lanes new, start -- CMD)
// has lanes' hooks installed: its SessionStart binds the agent's own session to the run's instead
// of registering a second one beside it, so its commits in its own worktree, its own claims and
// `lanes land` from its shell work, and the briefing names nobody but others. A session not started
// by lanes (a person's shell) and another kind of agent inside the run keep sessions of their own.

const AGENT = join(FIXTURES, 'hooked-agent.sh');
const ID = '3f2a9c1e-5b7d-4e21-9a0c-6d8e1f2b3c4d';

interface Listed {
  id: string;
  state: string;
  ticket: string | null;
  agent: string | null;
  conversation: string | null;
  worktree: string;
}

function world() {
  const repo = gitRepo();
  const out = tmp('lanes-agent-out-');
  const env = { ...lanesEnv(), LANES_CLI: CLI, OUT: out, AGENT_ID: ID, LAND: '1' };
  return { repo, out, env, opts: { env, cwd: repo } };
}

/** The agent's signal that it did everything and now idles. */
async function done(out: string): Promise<void> {
  for (let i = 0; i < 600 && !existsSync(join(out, 'done')); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(existsSync(join(out, 'done')), 'the stand-in agent finished its steps');
}

const read = (out: string, name: string) => readFileSync(join(out, name), 'utf8');

test('lanes new: the agent its hooks register is the run session: its commit, claim, edit and land work; one live session', async () => {
  const { out, opts } = world();
  const r = await lanes(['new', 'SHOP-3', '--background', '--json', '--', AGENT], opts);
  assert.equal(r.code, 0, r.stderr);
  const run = (JSON.parse(r.stdout) as { session: string }).session;
  await done(out);

  // The briefing is the run's, and names nobody else (its wrapper is not "another session").
  const start = JSON.parse(read(out, 'start.json')) as { hookSpecificOutput: { additionalContext: string } };
  assert.match(start.hookSpecificOutput.additionalContext, new RegExp(`you are session ${run} in worktree`));
  assert.match(start.hookSpecificOutput.additionalContext, /No other live session works in this repository/);
  // Its own git add && git commit in its own worktree: allowed by the hook, and committed.
  assert.equal(read(out, 'bash.json').trim(), '', `no deny: ${read(out, 'bash.json')}${read(out, 'bash.err')}`);
  assert.equal(read(out, 'commit.code').trim(), '0', read(out, 'commit.out'));
  // A claim from its shell is the run's, and the agent's edit under it is its own.
  assert.equal(read(out, 'claim.code').trim(), '0', read(out, 'claim.out'));
  assert.equal(read(out, 'edit.json').trim(), '', `no deny: ${read(out, 'edit.json')}`);
  const who = JSON.parse(read(out, 'whoami.json')) as { id: string; ticket: string; claims: { name: string }[] };
  assert.equal(who.id, run);
  assert.equal(who.ticket, 'SHOP-3');
  assert.deepEqual(who.claims.map((c) => c.name).sort(), ['SHOP-3', 'src/']);
  // lanes land from the agent's shell lands the run's branch under its ticket.
  assert.equal(read(out, 'land.code').trim(), '0', read(out, 'land.err'));

  const ls = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as Listed[];
  assert.deepEqual(
    ls.map((s) => [s.id, s.state, s.ticket, s.agent, s.conversation]),
    [[run, 'live', 'SHOP-3', 'claude-code', `claude-code:${ID}`]],
    'exactly one live session for the run, bound to the agent',
  );
  // The journal's decisions name the run's session, the binding among them.
  const log = (await lanes(['log', '--json'], opts)).stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; session: string | null; details: Record<string, unknown> });
  assert.ok(log.some((e) => e.kind === 'session.attach' && e.session === run && e.details['conversation']));
  assert.ok(
    log.some((e) => e.kind === 'land.done' && e.session === run) ||
      log.some((e) => e.kind.startsWith('land') && e.session === run),
  );
  assert.equal(log.filter((e) => e.session === `claude-code:${ID}`).length, 0, 'no entry of a second session');

  // No false shared-worktree collision anywhere: not in doctor, not in the morning report.
  const doctor = await lanes(['doctor', '--json'], opts);
  assert.doesNotMatch(doctor.stdout, /shared-worktree/, doctor.stdout);
  const report = JSON.parse((await lanes(['report', '--json'], opts)).stdout) as { sharedWorktrees: unknown[] };
  assert.deepEqual(report.sharedWorktrees, []);

  // The agent's SessionEnd (a /clear, its exit) does not end the run: the wrapper does, at the agent's exit.
  const end = await hook('claude-code', 'session-end', fixture('claude-code', 'session-end', ls[0]!.worktree, ID), {
    env: { ...opts.env, LANES_RUN: run },
    cwd: ls[0]!.worktree,
  });
  assert.equal(end.code, 0, end.stderr);
  assert.equal((await lanes(['ls', '--json'], opts)).stdout.includes(run), true);
  const stop = await lanes(['stop', run], opts);
  assert.equal(stop.code, 0, stop.stderr);
});

test("outside a lanes run the hooks register the agent its own session, as before: a person's session, a foreign LANES_RUN", async () => {
  const { repo, opts } = world();
  // A person's shell session (no run): the agent started from it is a session of its own.
  const mine = await lanes(['start', '--label', 'me', '--pid', String(process.pid)], opts);
  assert.equal(mine.code, 0, mine.stderr);
  const person = mine.stdout.trim();
  const env = { ...opts.env, LANES_SESSION: person };
  const s = await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, ID), {
    env,
    cwd: repo,
  });
  assert.equal(s.code, 0, s.stderr);
  const ls = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as Listed[];
  assert.deepEqual(ls.map((x) => x.id).sort(), [`claude-code:${ID}`, person].sort());

  // LANES_RUN naming a session that is no run (the person's: no command) binds nothing.
  const notRun = await hook('codex', 'session-start', fixture('codex', 'session-start', repo, 'c0dex-1'), {
    env: { ...opts.env, LANES_RUN: person },
    cwd: repo,
  });
  assert.equal(notRun.code, 0, notRun.stderr);
  // Nor a run whose wrapper is not above the hook (LANES_RUN copied into another process tree).
  const r = await lanes(['new', 'SHOP-5', '--background', '--json', '--', 'sleep', '600'], opts);
  assert.equal(r.code, 0, r.stderr);
  const run = (JSON.parse(r.stdout) as { session: string }).session;
  const foreign = await hook('gemini', 'session-start', fixture('gemini', 'session-start', repo, 'gem-1'), {
    env: { ...opts.env, LANES_RUN: run },
    cwd: repo,
  });
  assert.equal(foreign.code, 0, foreign.stderr);
  const after = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as Listed[];
  assert.deepEqual(
    after.map((x) => [x.id, x.conversation]).sort(),
    [
      [`claude-code:${ID}`, null],
      ['codex:c0dex-1', null],
      ['gemini:gem-1', null],
      [person, null],
      [run, null],
    ].sort(),
  );
  await lanes(['stop', run], opts);
});

test('a second agent process inside a run while the first runs is a session of its own; the same process binds again (a /clear)', async () => {
  const { out, opts } = world();
  const NESTED = '9e57ed00-0000-4000-8000-000000000001';
  const CLEARED = 'c1ea2ed0-0000-4000-8000-000000000002';
  const env = { ...opts.env, LAND: '0', NESTED_ID: NESTED, CLEAR_ID: CLEARED };
  const r = await lanes(['new', 'SHOP-4', '--background', '--json', '--', AGENT], { ...opts, env });
  assert.equal(r.code, 0, r.stderr);
  const run = (JSON.parse(r.stdout) as { session: string }).session;
  await done(out);
  const nested = JSON.parse(read(out, 'nested-ls.json')) as Listed[];
  assert.deepEqual(
    nested.map((s) => s.id).sort(),
    [`claude-code:${NESTED}`, run].sort(),
    `the nested agent registered its own session: ${read(out, 'nested.err')}`,
  );
  assert.equal(nested.find((s) => s.id === run)?.conversation, `claude-code:${ID}`, 'the run stays bound to its agent');
  // The /clear: the run goes on (its agent's SessionEnd ended nothing) and is bound to the new conversation.
  assert.match(read(out, 'clear-end.err') + read(out, 'clear-end.json'), /goes on until its run ends/);
  const ls = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as Listed[];
  const mine = ls.find((s) => s.id === run);
  assert.equal(mine?.state, 'live');
  assert.equal(mine?.conversation, `claude-code:${CLEARED}`);
  assert.ok(!ls.some((s) => s.id === `claude-code:${CLEARED}` || s.id === `claude-code:${ID}`));
  await lanes(['stop', run], opts);
});

test('another kind of agent than the run was started for is a session of its own beside the run', async () => {
  const { out, opts } = world();
  const env = { ...opts.env, LAND: '0' };
  const r = await lanes(['new', 'SHOP-6', '--agent', 'codex', '--background', '--json', '--', AGENT], { ...opts, env });
  assert.equal(r.code, 0, r.stderr);
  const run = (JSON.parse(r.stdout) as { session: string }).session;
  await done(out);
  const ls = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as Listed[];
  assert.deepEqual(
    ls.map((s) => [s.id, s.conversation]).sort(),
    [
      [`claude-code:${ID}`, null],
      [run, null],
    ].sort(),
  );
  await lanes(['stop', run], opts);
});
