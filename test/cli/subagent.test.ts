import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, FIXTURES, gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';

// Issue 44, item 2 (subagents): a Claude Code subagent with isolation: worktree gets a lanes worktree
// and a session of its own, tied to its parent; its tool calls and its shell commands act as it
// (not the parent, whose LANES_SESSION they inherit); at its end (SubagentStop: Claude Code never
// sends WorktreeRemove for a worktree a hook made) an unchanged worktree goes with its branch and
// session, a changed one is kept and its work saved. Outside a lanes run and inside `lanes new`.

const ID = '5ab0a9e7-0000-4000-8000-00000000c0de';
interface Step {
  code: number;
  stdout: string;
  stderr: string;
}
interface Listed {
  id: string;
  state: string;
  parent: string | null;
  worktree: string | null;
  endReason: string | null;
}

async function done(out: string): Promise<void> {
  for (let i = 0; i < 600 && !existsSync(join(out, 'done')); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(existsSync(join(out, 'done')), 'the stand-in agent finished its steps');
}
const step = (out: string, name: string) => JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) as Step;
const who = (out: string, name: string) => (JSON.parse(step(out, name).stdout) as { id: string }).id;

async function checkSubagents(out: string, parent: string, opts: { env: Record<string, string>; cwd: string }) {
  await done(out);
  const sub = (a: string) => `claude-code:${ID}.agent-${a}`;
  for (const a of ['a1', 'b2']) {
    assert.equal(step(out, `${a}-create`).code, 0, step(out, `${a}-create`).stderr);
    assert.equal(
      who(out, `${a}-whoami`),
      sub(a),
      `the subagent's shell acts as its session: ${step(out, `${a}-whoami`).stderr}`,
    );
    assert.equal(step(out, `${a}-claim`).code, 0, step(out, `${a}-claim`).stderr);
    assert.equal(step(out, `${a}-edit`).stdout.trim(), '', 'its edit under its own claim is allowed');
    assert.equal(who(out, `${a}-parent-whoami`), parent, "the parent's own shell acts as the parent");
    assert.match(
      step(out, `${a}-parent-edit`).stdout,
      /"permissionDecision":"deny"/,
      'the subagent’s claim is another session’s',
    );
  }
  assert.match(step(out, 'a1-stop').stderr, /removed \(nothing changed\)/);
  assert.match(
    step(out, 'b2-stop').stderr,
    /kept \(uncommitted work\); uncommitted work saved in refs\/lanes\/snapshots\//,
  );
  const all = JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as Listed[];
  const a1 = all.find((s) => s.id === sub('a1'));
  const b2 = all.find((s) => s.id === sub('b2'));
  assert.equal(a1?.parent, parent);
  assert.equal(a1?.state, 'ended');
  assert.equal(b2?.state, 'ended');
  assert.equal(existsSync(a1!.worktree!), false, 'the unchanged worktree is gone');
  assert.equal(existsSync(join(b2!.worktree!, 'b2.txt')), true, 'the changed one is kept');
  const branches = execFileSync('git', ['branch', '--list', 'lanes/agent-*'], { cwd: opts.cwd, encoding: 'utf8' });
  assert.doesNotMatch(branches, /agent-a1/);
  assert.match(branches, /agent-b2/);
  assert.equal(all.find((s) => s.id === parent)?.state, 'live', 'the parent goes on');
  // Shown nested: in lanes ls under the parent, in the report as the parent's subagents.
  const ls = (await lanes(['ls', '--all'], { ...opts, env: { ...opts.env, COLUMNS: '250' } })).stdout.split('\n');
  const at = ls.findIndex((l) => l.startsWith(parent));
  assert.ok(at >= 0, ls.join('\n'));
  assert.ok(ls[at + 1]?.startsWith(`└ ${sub('a1')}`) && ls[at + 2]?.startsWith(`└ ${sub('b2')}`), ls.join('\n'));
  const report = JSON.parse((await lanes(['report', '--json'], opts)).stdout) as {
    tickets: { ticket: string | null; sessions: { id: string; parent: string | null }[] }[];
  };
  const mine = report.tickets.find((t) => t.sessions.some((x) => x.id === parent));
  assert.deepEqual(
    mine?.sessions
      .filter((x) => x.parent === parent)
      .map((x) => x.id)
      .sort(),
    [sub('a1'), sub('b2')],
    'the subagents are in their parent’s ticket',
  );
}

test('outside a lanes run: each isolated subagent a session of its own, settled at its end', async () => {
  const repo = gitRepo();
  const out = tmp('lanes-sub-out-');
  const env = { ...lanesEnv(), LANES_CLI: CLI, OUT: out, AGENT_ID: ID };
  const agent = node('subagent-agent.mjs', [], { env, cwd: repo });
  await checkSubagents(out, `claude-code:${ID}`, { env, cwd: repo });
  agent.proc.kill('SIGKILL');
});

test('inside lanes new: the subagents are tied to the run, whose agent they work for', async () => {
  const repo = gitRepo();
  const out = tmp('lanes-sub-out-');
  const env = { ...lanesEnv(), LANES_CLI: CLI, OUT: out, AGENT_ID: ID };
  const r = await lanes(
    ['new', 'SHOP-9', '--background', '--json', '--', process.execPath, join(FIXTURES, 'subagent-agent.mjs')],
    { env, cwd: repo },
  );
  assert.equal(r.code, 0, r.stderr);
  const run = (JSON.parse(r.stdout) as { session: string }).session;
  await checkSubagents(out, run, { env, cwd: repo });
  await lanes(['stop', run], { env, cwd: repo });
});
