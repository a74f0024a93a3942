// A SIGKILL of `lanes land` (and of `lanes end`) after each git command it runs, one kill per run:
// afterwards nothing is published, or the next lanes call finishes the landing; a half-brought
// checked-out worktree is recognized (guard, lanes commit, hooks, doctor) and never a trap; the
// journal holds each land's intent and exactly one outcome. The kill point is the N-th git
// command, counted by a PATH shim for git, so every step of the command is covered in turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';
import { answer, fixture, hook } from '../helpers/hooks.js';
import { killingGit } from '../helpers/killing-git.js';

// The guard lanes installs runs in these git commands: with a test's own LANES_HOME, never the user's store.
let gitEnv: Record<string, string> | undefined;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', ...(gitEnv ? { env: gitEnv } : {}) }).trim();
interface Entry {
  kind: string;
  subject: string;
  details: Record<string, unknown>;
}

async function journal(env: Record<string, string>, cwd: string): Promise<Entry[]> {
  const r = await lanes(['log', '--kind', 'land', '--json', '--limit', '1000'], { env, cwd });
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);
}

async function world(n: number) {
  const repo = gitRepo();
  const env = lanesEnv();
  gitEnv = env;
  assert.equal((await lanes(['guard', 'install'], { env, cwd: repo })).code, 0);
  const s = JSON.parse(
    (
      await lanes(['start', '--worktree', '--ticket', `K${n}`, '--pid', String(process.pid), '--json'], {
        env,
        cwd: repo,
      })
    ).stdout,
  );
  writeFileSync(join(s.worktree, `k${n}.txt`), `landed work ${n}\n`);
  git(s.worktree, 'add', '.');
  git(s.worktree, 'commit', '-q', '-m', `k${n}`);
  return { repo, env, s, old: git(repo, 'rev-parse', 'main'), tip: git(s.worktree, 'rev-parse', 'HEAD') };
}

test(
  'a land killed after any of its git commands leaves no trap; the next call finishes it or nothing was published',
  { timeout: 600_000 },
  async () => {
    const shim = killingGit();
    let published = 0;
    let untouched = 0;
    let trapped = 0;
    for (let n = 1; ; n++) {
      const w = await world(n);
      const asS = { ...w.env, LANES_SESSION: w.s.id };
      rmSync(shim.count, { force: true });
      const killed = await lanes(['land'], {
        env: { ...asS, PATH: `${shim.bin}:${w.env['PATH']}`, LANES_KILL_AFTER_GIT: String(n) },
        cwd: w.s.worktree,
      });
      if (killed.signal !== 'SIGKILL') {
        // Past the last git command: the land ran to the end. Every step before was covered.
        assert.equal(killed.code, 0, killed.stderr);
        assert.ok(n > 5, `land runs several git commands (${n - 1} seen)`);
        break;
      }
      const moved = git(w.repo, 'rev-parse', 'main') === w.tip;
      const dirty = git(w.repo, 'status', '--porcelain');
      if (moved && dirty) {
        // The trap of old: main moved, its worktree still at the old files, the landed file staged as deleted.
        trapped++;
        assert.match(dirty, new RegExp(`^D  k${n}\\.txt$`, 'm'));
        // An agent's shell command: the hook denies it, saying what happened and how to finish it.
        const payload = fixture('claude-code', 'pre-tool-use-bash', w.repo, `agent-${n}`, (p) => {
          (p['tool_input'] as Record<string, unknown>)['command'] = 'git commit -am "fix status"';
        });
        const denied = answer(await hook('claude-code', 'pre-tool-use', payload, { env: w.env, cwd: w.repo }));
        assert.match(JSON.stringify(denied), /deny.*interrupted.*lanes doctor --fix/);
        const plain = execFileSync('sh', ['-c', 'git commit -qm "revert?" 2>&1; echo rc=$?'], {
          cwd: w.repo,
          env: w.env,
          encoding: 'utf8',
        });
        assert.match(plain, /interrupted/, 'the guard refuses to commit the staged reversal');
        assert.match(plain, /rc=1/);
        assert.equal(git(w.repo, 'rev-parse', 'main'), w.tip, 'no revert committed');
        const viaLanes = await lanes(['commit', '-m', 'x', '--', `k${n}.txt`], { env: w.env, cwd: w.repo });
        assert.equal(viaLanes.code, 1);
        assert.match(viaLanes.stderr, /not committing: a land of .* was interrupted/);
        const doc = await lanes(['doctor', '--json'], { env: w.env, cwd: w.repo });
        assert.equal(doc.code, 3);
        assert.ok(
          JSON.parse(doc.stdout).findings.some(
            (f: { kind: string; severity: string }) => f.kind === 'interrupted-land' && f.severity === 'error',
          ),
          doc.stdout,
        );
      }
      // The next lanes call finishes it: doctor --fix on odd steps, land itself on even ones.
      const next =
        n % 2
          ? await lanes(['doctor', '--fix', '--json'], { env: w.env, cwd: w.repo })
          : await lanes(['land'], { env: asS, cwd: w.s.worktree });
      assert.notEqual(next.signal, 'SIGKILL');
      const commonDir = join(w.repo, '.git');
      assert.deepEqual(
        existsSync(join(commonDir, 'lanes', 'landing')) ? readdirSync(join(commonDir, 'lanes', 'landing')) : [],
        [],
        `step ${n}: no intent left`,
      );
      const mainNow = git(w.repo, 'rev-parse', 'main');
      const entries = await journal(w.env, w.repo);
      const lands = entries.filter((e) => e.kind === 'land');
      const intents = entries.filter((e) => e.kind === 'land.intent');
      const aborts = entries.filter((e) => e.kind === 'land.abort');
      assert.equal(
        git(w.repo, 'status', '--porcelain'),
        '',
        `step ${n}: the main worktree is clean: ${next.stdout}${next.stderr}`,
      );
      if (mainNow === w.tip) {
        published++;
        assert.equal(readFileSync(join(w.repo, `k${n}.txt`), 'utf8'), `landed work ${n}\n`);
        assert.equal(lands.length, 1, `step ${n}: one land entry: ${JSON.stringify(entries)}`);
        assert.equal(lands[0]!.details['to'], w.tip);
      } else {
        untouched++;
        assert.equal(mainNow, w.old, `step ${n}: main is where it was`);
        assert.equal(lands.length, n % 2 ? 0 : 1, `step ${n}: no land entry for what was not published`);
      }
      // Every intent has its outcome: a land, or a record that it did not publish.
      assert.equal(
        intents.length,
        lands.length + aborts.length,
        `step ${n}: ${JSON.stringify(entries.map((e) => e.kind))}`,
      );
      assert.equal(
        (await lanes(['doctor'], { env: w.env, cwd: w.repo })).code,
        0,
        `step ${n}: doctor green afterwards`,
      );
    }
    assert.ok(
      published > 0 && untouched > 0 && trapped > 0,
      `every side covered (published ${published}, untouched ${untouched}, half-brought ${trapped})`,
    );
  },
);

test(
  'an end killed after any of its git commands leaves the session open with its claims, or ended and released',
  { timeout: 300_000 },
  async () => {
    const shim = killingGit();
    for (let n = 1; ; n++) {
      const repo = gitRepo();
      const env = lanesEnv();
      const s = JSON.parse(
        (
          await lanes(['start', '--worktree', '--ticket', `E${n}`, '--pid', String(process.pid), '--json'], {
            env,
            cwd: repo,
          })
        ).stdout,
      );
      writeFileSync(join(s.worktree, 'wip.txt'), 'unsaved\n');
      rmSync(shim.count, { force: true });
      const killed = await lanes(['end', '--force', s.id], {
        env: { ...env, PATH: `${shim.bin}:${env['PATH']}`, LANES_KILL_AFTER_GIT: String(n) },
        cwd: repo,
      });
      const ls = JSON.parse((await lanes(['ls', '--all', '--json'], { env, cwd: repo })).stdout);
      const state = ls.find((x: { id: string }) => x.id === s.id).state;
      const claims = JSON.parse((await lanes(['claims', '--json'], { env, cwd: repo })).stdout);
      const ends = (await lanes(['log', '--kind', 'session.end', '--json'], { env, cwd: repo })).stdout
        .split('\n')
        .filter(Boolean);
      if (killed.signal !== 'SIGKILL') {
        assert.equal(killed.code, 0, killed.stderr);
        assert.equal(state, 'ended');
        break;
      }
      assert.equal(readFileSync(join(s.worktree, 'wip.txt'), 'utf8'), 'unsaved\n', 'the work is never touched');
      if (state === 'ended') {
        assert.equal(claims.length, 0);
        assert.equal(ends.length, 1);
        // Ended means saved first: the snapshot exists before the session is recorded ended.
        assert.match(git(repo, 'show', `refs/lanes/snapshots/${s.id}/1:wip.txt`), /unsaved/, `step ${n}`);
      } else {
        assert.equal(claims.length, 1, `step ${n}: still holds its ticket`);
        assert.equal(ends.length, 0);
        const again = await lanes(['end', '--force', s.id], { env, cwd: repo });
        assert.equal(again.code, 0, again.stderr);
        assert.match(git(repo, 'show', `refs/lanes/snapshots/${s.id}/1:wip.txt`), /unsaved/);
      }
    }
  },
);

test('a land killed after its outcome was journaled, before its intent was removed, is not journaled twice', async () => {
  const w = await world(0);
  const asS = { ...w.env, LANES_SESSION: w.s.id };
  const landed = await lanes(['land'], { env: asS, cwd: w.s.worktree });
  assert.equal(landed.code, 0, landed.stderr);
  const [intent] = (await journal(w.env, w.repo)).filter((e) => e.kind === 'land.intent');
  assert.ok(intent);
  // What a kill between the two leaves: the intent file of a land that is complete and journaled.
  const dir = join(w.repo, '.git', 'lanes', 'landing');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${createHash('sha256').update('refs/heads/main').digest('hex').slice(0, 24)}.json`),
    JSON.stringify({
      v: 1,
      target: 'main',
      targetRef: 'refs/heads/main',
      ...intent.details,
      ticket: 'ticket:K0',
      worktree: w.repo,
      session: w.s.id,
      repo: null,
      gate: 'land:leftover',
      at: Date.now(),
    }),
  );
  const doc = await lanes(['doctor', '--json'], { env: w.env, cwd: w.repo });
  assert.equal(doc.code, 3);
  const fix = await lanes(['doctor', '--fix', '--json'], { env: w.env, cwd: w.repo });
  assert.equal(fix.code, 0, fix.stdout);
  assert.deepEqual(readdirSync(dir), []);
  assert.equal((await journal(w.env, w.repo)).filter((e) => e.kind === 'land').length, 1);
});
