// Incident 3b as an end-to-end test: a live session A with complete work in worktree X, a dead
// session B's older copy of the same ticket in worktree Y. The sweep publishes nothing, snapshots
// both, flags the collision and the stale copy, and main is untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';

test(
  'sweep: snapshots both copies of one ticket, flags collision and stale copy, publishes nothing',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
    const owner = node('sleeper.mjs', [], { env });
    const [, deadPid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    // Nobody claimed the ticket in the incident; today the first start claims it, so the second
    // session works beside it on purpose (--join): the same two copies of one ticket.
    const start = async (pid: string, ...extra: string[]) =>
      JSON.parse(
        (
          await lanes(['start', '--worktree', '--ticket', 'SEAT-8', '--json', '--pid', pid, ...extra], {
            env,
            cwd: repo,
          })
        ).stdout,
      );
    const b = await start(deadPid!);
    const a = await start(String(process.pid), '--join');
    assert.notEqual(a.worktree, b.worktree);
    // B's copy: started earlier, incomplete, last touched an hour ago; then B's process dies.
    writeFileSync(join(b.worktree, 'job.txt'), 'hour 1 of 8\n');
    const hourAgo = Date.now() / 1000 - 3600;
    utimesSync(join(b.worktree, 'job.txt'), hourAgo, hourAgo);
    owner.proc.kill('SIGKILL');
    await owner.exited;
    // A's complete work, now.
    writeFileSync(join(a.worktree, 'job.txt'), 'all 8 hours, complete\n');
    writeFileSync(join(a.worktree, 'README.md'), 'updated\n');
    const refsBefore = git(repo, 'for-each-ref', 'refs/heads');
    const mainBefore = git(repo, 'rev-parse', 'main');

    const r = await lanes(['sweep', '--json'], { env, cwd: repo });
    assert.equal(r.code, 3, r.stderr);
    const report = JSON.parse(r.stdout);
    const x = report.items.find((i: { worktree: string }) => i.worktree === a.worktree);
    const y = report.items.find((i: { worktree: string }) => i.worktree === b.worktree);
    assert.equal(x.verdict, 'in-progress');
    assert.match(x.note, new RegExp(`in progress, owned by ${a.id} — snapshot only, not published`));
    assert.equal(y.verdict, 'abandoned');
    assert.equal(y.session.state, 'dead');
    assert.equal(y.adopt, `lanes adopt ${b.id}`);
    assert.ok(x.snapshot.ref.startsWith(`refs/lanes/snapshots/${a.id}/`));
    assert.ok(y.snapshot.ref.startsWith(`refs/lanes/snapshots/${b.id}/`));
    const kinds = report.flags.map((f: { kind: string }) => f.kind).sort();
    assert.deepEqual(kinds, ['collision', 'stale']);
    const stale = report.flags.find((f: { kind: string }) => f.kind === 'stale');
    assert.equal(stale.worktrees[0], b.worktree, 'the older copy is the stale one');
    // Nothing was published: no branch moved, main untouched, files and index as they were.
    assert.equal(git(repo, 'for-each-ref', 'refs/heads'), refsBefore);
    assert.equal(git(repo, 'rev-parse', 'main'), mainBefore);
    assert.equal(git(a.worktree, 'status', '--porcelain'), ' M README.md\n?? job.txt\n');
    // The snapshots hold each side's work.
    assert.equal(git(repo, 'show', `${x.snapshot.ref}:job.txt`), 'all 8 hours, complete\n');
    assert.equal(git(repo, 'show', `${y.snapshot.ref}:job.txt`), 'hour 1 of 8\n');
    // A second sweep writes no new snapshot when nothing changed.
    const again = JSON.parse((await lanes(['sweep', '--json'], { env, cwd: repo })).stdout);
    assert.ok(
      again.items.every(
        (i: { snapshot: { created: boolean } | null }) => i.snapshot === null || i.snapshot.created === false,
      ),
    );
    // --dry-run writes nothing.
    writeFileSync(join(a.worktree, 'more.txt'), 'x\n');
    const dry = JSON.parse((await lanes(['sweep', '--dry-run', '--json'], { env, cwd: repo })).stdout);
    assert.equal(dry.items.find((i: { worktree: string }) => i.worktree === a.worktree).snapshot, null);
    assert.equal(git(repo, 'for-each-ref', `refs/lanes/snapshots/${a.id}`).trim().split('\n').length, 1);
  },
);
