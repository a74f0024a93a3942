// The landing queue (issue 49, item 3): sessions marked ready land one at a time in the order they
// became ready, each brought onto the target's tip in its worktree and checked there ([land]
// check, allowed as any command of a repository's lanes.toml) before it is published; one that
// conflicts or fails its check is stopped with its branch as it was, and the queue goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allowConfig, gitRepo, lanes, lanesChild, lanesEnv, owner, tmp } from '../helpers/env.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function ok(r: { code: number | null; stdout: string; stderr: string }): void {
  assert.equal(r.code, 0, r.stdout + r.stderr);
}

function commit(cwd: string, files: Record<string, string>, message: string): void {
  for (const [f, text] of Object.entries(files)) writeFileSync(join(cwd, f), text);
  git(cwd, 'add', '--', ...Object.keys(files));
  git(cwd, 'commit', '-q', '-m', message);
}

/** A repository whose [land] check fails where a file BROKEN exists, allowed; sessions on tickets T-A … */
async function world(check = 'test ! -e BROKEN') {
  const repo = gitRepo();
  const env = lanesEnv();
  commit(repo, { 'lanes.toml': `[land]\ncheck = ${JSON.stringify(check)}\n`, 'shared.txt': 'base\n' }, 'base');
  await allowConfig(repo, env);
  const start = async (ticket: string, pid: string) => {
    const r = await lanes(['start', '--worktree', '--ticket', ticket, '--json', '--pid', pid], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as { id: string; worktree: string };
    return { ...s, as: { env: { ...env, LANES_SESSION: s.id }, cwd: s.worktree } };
  };
  return { repo, env, start };
}

test(
  'five ready sessions, one conflicting and one failing its check: main gets exactly the good ones, in order',
  {
    timeout: 120_000,
  },
  async () => {
    const { repo, env, start } = await world();
    const agent = await owner(env);
    const gone = await owner(env);
    const a = await start('T-A', agent.pid);
    const b = await start('T-B', agent.pid);
    const c = await start('T-C', agent.pid);
    const d = await start('T-D', gone.pid);
    const e = await start('T-E', agent.pid);
    commit(a.worktree, { 'shared.txt': 'from A\n', 'a.txt': 'a\n' }, 'A: shared and a');
    commit(b.worktree, { 'b.txt': 'b\n' }, 'B: b');
    commit(c.worktree, { 'c.txt': 'c\n', BROKEN: 'x\n' }, 'C: breaks the check');
    commit(d.worktree, { 'shared.txt': 'from D\n' }, 'D: shared (conflicts with A)');
    commit(e.worktree, { 'e1.txt': '1\n' }, 'E: one');
    commit(e.worktree, { 'e2.txt': '2\n' }, 'E: two');
    // main moves on under all of them (a person's commit): each is brought onto the new tip.
    commit(repo, { 'm.txt': 'm\n' }, 'main: m');
    const tips = Object.fromEntries([a, b, c, d, e].map((s) => [s.id, git(s.worktree, 'rev-parse', 'HEAD')]));

    // A marks itself, as its agent would; a person marks C by ticket; B ends first (its owner is
    // there, it just finished) and is marked by the person; D's owner died; E marks itself.
    ok(await lanes(['ready'], a.as));
    const byTicket = await lanes(['ready', 'T-C'], { env, cwd: repo });
    assert.match(byTicket.stdout, /T-C\) is ready to land: .* 2nd in line/, byTicket.stderr);
    ok(await lanes(['end', b.id, '--force'], { env, cwd: repo }));
    ok(await lanes(['ready', b.id], { env, cwd: repo }));
    await gone.kill();
    ok(await lanes(['ready', 'T-D'], { env, cwd: repo }));
    // An agent cannot mark another live session; E marks itself, twice (nothing changes).
    const other = await lanes(['ready', e.id], a.as);
    assert.equal(other.code, 3, other.stderr);
    assert.match(other.stderr, /is live and not this session/);
    ok(await lanes(['ready'], e.as));
    assert.match((await lanes(['ready'], e.as)).stdout, /was already ready to land: .* 5th in line/);

    const q = JSON.parse((await lanes(['queue', '--json'], { env, cwd: repo })).stdout) as {
      ready: { session: string }[];
    };
    assert.deepEqual(
      q.ready.map((r) => r.session),
      [a.id, c.id, b.id, d.id, e.id],
    );

    const run = await lanes(['land', '--queue', '--json'], { env, cwd: repo });
    assert.equal(run.code, 3, `exit 3: some were stopped\n${run.stdout}${run.stderr}`);
    const r = JSON.parse(run.stdout) as {
      results: { session: string; outcome: string; reason?: string; why?: string }[];
    };
    assert.deepEqual(
      r.results.map((x) => [x.session, x.outcome, x.reason ?? '']),
      [
        [a.id, 'landed', ''],
        [c.id, 'stopped', 'check failed'],
        [b.id, 'landed', ''],
        [d.id, 'stopped', 'conflict'],
        [e.id, 'landed', ''],
      ],
    );
    assert.match(r.results[3]!.why!, /shared\.txt/);
    // main: exactly the good ones, in the order they became ready, on top of what main had.
    assert.deepEqual(git(repo, 'log', '--format=%s', 'main').split('\n'), [
      'E: two',
      'E: one',
      'B: b',
      'A: shared and a',
      'main: m',
      'base',
      'initial',
    ]);
    assert.equal(git(repo, 'status', '--porcelain'), '', 'the main worktree follows, clean');
    assert.ok(!existsSync(join(repo, 'BROKEN')));
    assert.equal(git(repo, 'show', 'main:shared.txt'), 'from A');
    // The stopped ones as they were: branch, files, nothing in the middle of a rebase.
    for (const s of [c, d]) {
      assert.equal(git(s.worktree, 'rev-parse', 'HEAD'), tips[s.id]);
      assert.equal(git(s.worktree, 'status', '--porcelain'), '');
    }
    // D's conflict was found by git merge-tree: its worktree never began a rebase (its HEAD's last move is its commit).
    assert.match(git(d.worktree, 'reflog', '-1', '--format=%gs', 'HEAD'), /^commit: D: shared/);
    const after = JSON.parse((await lanes(['queue', '--json'], { env, cwd: repo })).stdout) as {
      ready: unknown[];
      stopped: { session: string; reason: string }[];
    };
    assert.deepEqual(after.ready, []);
    assert.deepEqual(
      after.stopped.map((s) => [s.session, s.reason]).sort(),
      [
        [c.id, 'check failed'],
        [d.id, 'conflict'],
      ].sort(),
    );
    const text = await lanes(['queue'], { env, cwd: repo });
    assert.match(text.stdout, /no session is ready to land/);
    assert.match(
      text.stdout,
      new RegExp(`${c.id} \\(T-C\\): check failed: \\[land\\] check \`test ! -e BROKEN\` exited with code 1`),
    );
    const log = (await lanes(['log', '--kind', 'land', '--json'], { env, cwd: repo })).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string });
    assert.equal(log.filter((x) => x.kind === 'land.ready').length, 5);
    assert.equal(log.filter((x) => x.kind === 'land.stop').length, 2);
    assert.equal(log.filter((x) => x.kind === 'land').length, 3);

    // C's agent (live) is told why, at its next tool call; D's (dead) is not.
    const toldC = JSON.parse((await lanes(['tell', c.id, '--list', '--json'], { env, cwd: repo })).stdout) as {
      message: string;
      delivered: unknown;
    }[];
    assert.equal(toldC.length, 1);
    assert.match(toldC[0]!.message, /did not land lanes\/t-c into main \(check failed\).*\n.*lanes ready/s);
    assert.equal(toldC[0]!.delivered, null, 'pending until its next tool call');
    assert.deepEqual(JSON.parse((await lanes(['tell', d.id, '--list', '--json'], { env, cwd: repo })).stdout), []);

    // The morning's review list: per ticket, ready and landed first, then what the queue stopped; the
    // stopped ones in Needs you too, each with its command.
    const report = JSON.parse((await lanes(['report', '--json'], { env, cwd: repo })).stdout) as {
      review: { ticket: string; status: string; command: string }[];
      needsYou: { what: string; command: string }[];
    };
    const review = report.review.filter((x) => x.ticket?.startsWith('T-'));
    assert.deepEqual(
      review.map((x) => [x.ticket, x.status]),
      [
        ['T-A', 'landed'],
        ['T-B', 'landed'],
        ['T-E', 'landed'],
        ['T-D', 'conflict'],
        ['T-C', 'check failed'],
      ],
    );
    assert.match(
      review[3]!.command,
      new RegExp(`lanes diff T-D .*lanes ready T-D`),
      'D died: looked at, fixed, marked again',
    );
    assert.match(review[4]!.command, new RegExp(`lanes attach ${c.id}`), 'C is live: its agent fixes it');
    assert.ok(report.needsYou.some((n) => /T-D stopped by the landing queue \(conflict\)/.test(n.what)));
    const textReport = (await lanes(['report'], { env, cwd: repo })).stdout;
    assert.match(textReport, /Review \(\d+\): 3 landed, 1 conflict, 1 check failed/);

    // C fixed and marked again: the next run lands it alone.
    git(c.worktree, 'rm', '-q', 'BROKEN');
    git(c.worktree, 'commit', '-q', '-m', 'C: fixed');
    ok(await lanes(['ready'], c.as));
    const before = JSON.parse((await lanes(['report', '--json'], { env, cwd: repo })).stdout) as {
      review: { ticket: string; status: string; command: string }[];
    };
    assert.deepEqual(
      before.review.filter((x) => x.ticket === 'T-C').map((x) => [x.status, x.command]),
      [['ready', 'lanes land --queue']],
    );
    const again = await lanes(['land', '--queue'], { env, cwd: repo });
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /1 landed, 0 stopped/);
    assert.equal(git(repo, 'log', '-1', '--format=%s', 'main'), 'C: fixed');
    await agent.kill();
  },
);

test(
  "the check is the repository's, as allowed: a branch that changes or drops it is still checked",
  {
    timeout: 60_000,
  },
  async () => {
    const { repo, env, start } = await world();
    const agent = await owner(env);
    // X changes the check to one of its own (and breaks the real one); Y deletes lanes.toml.
    const x = await start('T-X', agent.pid);
    const y = await start('T-Y', agent.pid);
    const marker = join(repo, '..', `ran-${x.id}`);
    commit(x.worktree, { 'lanes.toml': `[land]\ncheck = "touch ${marker}"\n`, BROKEN: 'x\n' }, 'X: a check of its own');
    git(y.worktree, 'rm', '-q', 'lanes.toml');
    commit(y.worktree, { BROKEN: 'y\n' }, 'Y: no check at all');
    ok(await lanes(['ready'], x.as));
    ok(await lanes(['ready'], y.as));
    const run = await lanes(['land', '--queue', '--json'], { env, cwd: repo });
    assert.equal(run.code, 3, run.stdout + run.stderr);
    const r = JSON.parse(run.stdout) as { results: { session: string; reason?: string }[] };
    assert.deepEqual(
      r.results.map((e) => [e.session, e.reason]),
      [
        [x.id, 'check failed'],
        [y.id, 'check failed'],
      ],
    );
    assert.ok(!existsSync(marker), "the branch's own check never ran");
    assert.equal(git(repo, 'log', '-1', '--format=%s', 'main'), 'base');

    // The main worktree's lanes.toml changed since lanes allow: not run, each stopped saying so.
    writeFileSync(join(repo, 'lanes.toml'), `[land]\ncheck = "touch ${marker}"\n`);
    ok(await lanes(['ready'], x.as));
    const again = await lanes(['land', '--queue'], { env, cwd: repo });
    assert.equal(again.code, 3, again.stdout + again.stderr);
    assert.match(again.stdout, /check not allowed: \[land\] check .* is not allowed: read it, then `lanes allow /);
    assert.ok(!existsSync(marker), 'the changed check never ran');
    await agent.kill();
  },
);

test(
  'what was marked ready is what lands: a branch moved since, or during its check, is stopped and keeps its commits',
  {
    timeout: 60_000,
  },
  async () => {
    const signals = tmp('lanes-check-');
    const { repo, env, start } = await world(
      `touch "${signals}/began"; while [ ! -e "${signals}/go" ]; do sleep 0.05; done`,
    );
    const agent = await owner(env);
    const s = await start('T-M', agent.pid);
    commit(s.worktree, { 'm1.txt': '1\n' }, 'M: one');
    commit(repo, { 'main.txt': 'main\n' }, 'main: moves on');
    ok(await lanes(['ready'], s.as));
    // A commit after ready: not what was marked.
    commit(s.worktree, { 'm2.txt': '2\n' }, 'M: two, unreviewed');
    const moved = await lanes(['land', '--queue'], { env, cwd: repo });
    assert.equal(moved.code, 3, moved.stdout + moved.stderr);
    assert.match(moved.stdout, /moved since ready: lanes\/t-m is at [0-9a-f]{10}, marked ready at [0-9a-f]{10}/);
    // Marked again; while its check runs (the check says it began, and waits for the test), the agent commits.
    ok(await lanes(['ready'], s.as));
    const run = lanesChild(['land', '--queue'], { env, cwd: repo });
    for (let i = 0; !existsSync(join(signals, 'began')); i++) {
      if (i > 400) assert.fail(`the check never began: ${run.stdout}${run.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    commit(s.worktree, { 'm3.txt': '3\n' }, 'M: three, during the check');
    writeFileSync(join(signals, 'go'), '');
    const done = await run.exited;
    assert.equal(done.code, 3, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /moved during the check: lanes\/t-m moved while the check ran .*nothing landed, its commits kept/,
    );
    assert.equal(git(repo, 'log', '-1', '--format=%s', 'main'), 'main: moves on', 'nothing unchecked published');
    assert.equal(git(s.worktree, 'log', '-1', '--format=%s'), 'M: three, during the check', "the agent's commit kept");
    assert.ok(existsSync(join(s.worktree, 'm3.txt')));
    await agent.kill();
  },
);
