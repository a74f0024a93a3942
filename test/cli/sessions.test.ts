import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CLI, lanes, lanesChild, lanesEnv, node, gitRepo, run, tmp } from '../helpers/env.js';
import { needs } from '../helpers/needs.js';
import { callerPid } from '../../src/core/process-identity.js';
import type { ProcessFacts } from '../../src/core/platform/types.js';

test('start prints an id; --json the record with repository, worktree and owner', async () => {
  const env = lanesEnv();
  const repo = gitRepo();
  const sleeper = node('sleeper.mjs', [], { env });
  const [, pid] = (await sleeper.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const r = await lanes(
    ['start', '--json', '--label', 'billing 😀', '--ticket', 'SEAT-42', '--agent', 'codex', '--pid', pid!],
    { env, cwd: repo },
  );
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.match(s.id, /^s-[0-9a-z]{10}$/);
  assert.equal(s.label, 'billing 😀');
  assert.equal(s.owner.pid, Number(pid));
  assert.match(s.repo, /\.git$/);
  assert.equal(s.worktree.endsWith(repo.split('/').pop()), true);
  const ls = JSON.parse((await lanes(['ls', '--json'], { env })).stdout);
  assert.equal(ls[0].state, 'live');
  sleeper.proc.stdin.end();
  await sleeper.exited;
  const after = JSON.parse((await lanes(['ls', '--json'], { env })).stdout);
  assert.equal(after[0].state, 'dead', 'its owner exited, so the session is dead');
  assert.match(after[0].why, /exited/);
});

test('start -- CMD: LANES_SESSION set, exit code passed through, session ended', async () => {
  const env = lanesEnv();
  const r = await lanes(
    [
      'start',
      '--label',
      'wrapped',
      '--',
      process.execPath,
      '-e',
      'console.log(process.env.LANES_SESSION); process.exit(7)',
    ],
    { env },
  );
  assert.equal(r.code, 7);
  const id = r.stdout.trim();
  assert.match(id, /^s-/);
  const all = JSON.parse((await lanes(['ls', '--all', '--json'], { env })).stdout);
  assert.equal(all[0].id, id);
  assert.equal(all[0].state, 'ended');
  assert.equal(all[0].endReason, 'command exited with code 7');
  const missing = await lanes(['start', '--', 'no-such-command-xyz'], { env });
  assert.equal(missing.code, 127);
  assert.match(missing.stderr, /command not found/);
});

test('start -- CMD forwards signals to CMD', async () => {
  const env = lanesEnv();
  const script =
    'process.on("SIGTERM", () => { console.log("got TERM"); process.exit(42) }); console.log("up"); setInterval(() => {}, 1000)';
  const child = lanesChild(['start', '--', process.execPath, '-e', script], { env });
  await child.waitFor(/up/);
  child.proc.kill('SIGTERM');
  const exit = await child.exited;
  assert.equal(exit.code, 42);
  assert.match(child.stdout, /got TERM/);
});

test('whoami: clear errors when LANES_SESSION is unset, unknown or ended', async () => {
  const env = lanesEnv();
  const unset = await lanes(['whoami'], { env });
  assert.equal(unset.code, 1);
  assert.match(unset.stderr, /LANES_SESSION is not set/);
  assert.match(unset.stderr, /fix: .*lanes start/);
  const unknown = await lanes(['whoami'], { env: { ...env, LANES_SESSION: 's-nothere000' } });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /s-nothere000 is not known/);
  const id = (await lanes(['start', '--pid', String(process.pid)], { env })).stdout.trim();
  const me = await lanes(['whoami', '--json'], { env: { ...env, LANES_SESSION: id } });
  assert.equal(JSON.parse(me.stdout).id, id);
  await lanes(['end', '--force', id, '--reason', 'finished the ticket'], { env });
  const ended = await lanes(['whoami'], { env: { ...env, LANES_SESSION: id } });
  assert.equal(ended.code, 1);
  assert.match(ended.stderr, /has ended \(finished the ticket\)/);
  const bad = await lanes(['whoami'], { env: { ...env, LANES_SESSION: '../etc' } });
  assert.equal(bad.code, 2);
});

test('usage errors exit 2 and name the command', async () => {
  const env = lanesEnv();
  for (const args of [
    ['nope'],
    ['ls', '--bogus'],
    ['start', '--pid', 'abc'],
    ['start', '--pid', '1', '--', 'true'],
    ['ls', 'extra'],
    ['claim'],
    ['state', 'frob'],
  ]) {
    const r = await lanes(args, { env: { ...env, LANES_SESSION: 's-x' } });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /lanes: error:/);
  }
  const help = await lanes(['claim', '--help'], { env });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--wait/);
  assert.match(help.stdout, /Exit codes/);
});

test('--json errors are JSON on stdout with the code', async () => {
  const r = await lanes(['whoami', '--json'], { env: lanesEnv(tmp()) });
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).error.code, 'E_NO_SESSION');
});

// GNU coreutils' timeout (macOS has none unless installed).
const noTimeout = needs(
  'coreutils timeout',
  spawnSync('sh', ['-c', 'command -v timeout']).status !== 0 && 'no `timeout` command on this system',
);

test(
  'the owner skips launchers: under `timeout lanes start` the owner is the shell, not timeout',
  { skip: noTimeout },
  async () => {
    const env = lanesEnv();
    // `timeout` forks and waits, so it really sits between the calling shell and lanes, and exits with it.
    const r = await run('sh', ['-c', `timeout 30 "${process.execPath}" "${CLI}" start --json; echo "sh=$$"`], { env });
    assert.equal(r.code, 0, r.stderr);
    const rec = JSON.parse(r.stdout.slice(0, r.stdout.lastIndexOf('}') + 1));
    const shPid = Number(/sh=(\d+)/.exec(r.stdout)?.[1]);
    assert.equal(rec.owner.pid, shPid);
  },
);

// The README's `export LANES_SESSION=$(lanes start …)` with a redirection or a pipe added: the
// shell forks a subshell for it, which exits with lanes. The session was then dead at once (and its
// claims taken over by the next claimant): the owner is now the shell the subshell was forked from.
for (const shell of ['bash', 'zsh', 'sh'])
  test(
    `${shell}: \`$(lanes start 2>/dev/null)\` and \`$(lanes start | cat)\` are owned by the shell, not the subshell it forked`,
    {
      skip:
        process.platform !== 'linux' || (process.env['LANES_PLATFORM'] ?? 'linux') !== 'linux'
          ? 'the process group is read from /proc: on the ps path (macOS, or LANES_PLATFORM=darwin here) the owner is chosen as before'
          : needs(shell, spawnSync(shell, ['-c', 'true']).error ? `no ${shell} on PATH` : false),
    },
    async () => {
      const env = lanesEnv();
      const lanesCmd = `"${process.execPath}" "${CLI}"`;
      const script = [
        `a=$(${lanesCmd} start --json 2>/dev/null)`,
        `b=$(${lanesCmd} start --json | cat)`,
        `printf '%s\\n%s\\nsh=%s\\n' "$a" "$b" "$$"`,
      ].join('; ');
      const r = await run(shell, ['-c', script], { env });
      assert.equal(r.code, 0, r.stderr);
      const shPid = Number(/sh=(\d+)/.exec(r.stdout)?.[1]);
      const owners = [...r.stdout.matchAll(/"pid": ?(\d+)/g)].map((m) => Number(m[1]));
      assert.deepEqual(owners, [shPid, shPid], r.stdout);
    },
  );

test('a shell the user started inside another (a job: its own process group) owns its sessions; a forked one does not', () => {
  const fact = (pid: number, ppid: number, pgid: number, command = 'bash'): ProcessFacts => ({
    pid,
    ppid,
    pgid,
    state: 'S',
    startTime: String(pid),
    name: 'bash',
    command,
  });
  const outer = fact(100, 1, 100);
  assert.equal(callerPid(200, [fact(200, 100, 100), outer]), 100, 'forked for $(…): its parent owns');
  assert.equal(callerPid(200, [fact(200, 100, 200), outer]), 200, 'a nested shell leading its own group owns');
  assert.equal(
    callerPid(200, [fact(200, 100, 100, 'bash -l'), outer]),
    200,
    'another command line: a shell of its own',
  );
  const { pgid: _, ...noGroup } = fact(200, 100, 100);
  assert.equal(callerPid(200, [noGroup, outer]), 200, 'no process group known (ps platforms): as before');
  assert.equal(
    callerPid(300, [fact(300, 200, 100), fact(200, 100, 100), outer]),
    100,
    '$( ( lanes start ) ): two forks up',
  );
});
