import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Child, CLI, allowConfig, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { needs } from '../helpers/needs.js';

const haveTmux = () => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'pipe' });
    return null;
  } catch {
    return 'tmux is not installed (apt-get install tmux)';
  }
};

// Issue 44, item 2: the agent a lanes run starts gets exactly the session's environment (what
// `lanes exec` gives its commands): its leased ports, its templated names, a private TMPDIR, and
// nothing [env] strip names from the caller's environment. Read from the agent process itself
// (/proc/PID/environ), for `lanes new` (its wrapper) and `lanes start -- CMD`.

async function world() {
  const repo = gitRepo();
  writeFileSync(
    join(repo, 'lanes.toml'),
    '[ports]\nnames = ["web"]\nrange = "25300-25399"\n\n[env]\nDATABASE_NAME = "{repo}_{slug}"\nstrip = ["*_API_KEY"]\n',
  );
  execFileSync('git', ['add', 'lanes.toml'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'lanes.toml'], { cwd: repo });
  const env: Record<string, string> = { ...lanesEnv(), FOO_API_KEY: 'sk-do-not-pass', KEEP_ME: 'kept' };
  await allowConfig(repo, env);
  return { repo, env, opts: { env, cwd: repo } };
}

/** The environment of the agent: the wrapper's (the session owner's) one child. */
function agentEnvironment(owner: number): Record<string, string> {
  let child = '';
  for (let i = 0; i < 100 && !child; i++) {
    child = readFileSync(`/proc/${owner}/task/${owner}/children`, 'utf8').trim().split(/\s+/)[0] ?? '';
    if (!child) execFileSync('sleep', ['0.05']);
  }
  assert.ok(child, `the wrapper ${owner} has a child`);
  const raw = readFileSync(`/proc/${child}/environ`, 'utf8');
  return Object.fromEntries(
    raw
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

function assertSessionEnvironment(env: Record<string, string>, id: string, repo: string, slug: string): void {
  assert.equal(env['FOO_API_KEY'], undefined, 'a stripped variable never reaches the agent');
  assert.equal(env['KEEP_ME'], 'kept', 'the rest of the caller’s environment does');
  assert.match(env['PORT_WEB'] ?? '', /^253\d\d$/);
  assert.equal(
    env['DATABASE_NAME'],
    `${basename(repo)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')}_${slug}`,
  );
  assert.equal(env['LANES_SESSION'], id);
  assert.equal(env['LANES_RUN'], id);
  const tmpdir = env['TMPDIR'] ?? '';
  assert.ok(tmpdir.includes(id) && existsSync(tmpdir), `a private TMPDIR of the session: ${tmpdir}`);
  assert.equal(statSync(tmpdir).mode & 0o777, 0o700);
}

test('lanes new: the agent gets the session environment, never a stripped variable', async () => {
  if (process.platform !== 'linux') return; // /proc/PID/environ
  const { repo, opts } = await world();
  const r = await lanes(['new', 'SHOP-7', '--background', '--json', '--', 'sleep', '600'], opts);
  assert.equal(r.code, 0, r.stderr);
  const id = (JSON.parse(r.stdout) as { session: string }).session;
  const [s] = JSON.parse((await lanes(['ls', '--json'], opts)).stdout) as { owner: { pid: number } }[];
  assertSessionEnvironment(agentEnvironment(s!.owner.pid), id, repo, 'shop-7');
  const ports = JSON.parse((await lanes(['ports', '--json'], opts)).stdout) as { session: string; port: number }[];
  assert.ok(
    ports.some((p) => p.session === id),
    'the port is leased to the session',
  );
  await lanes(['stop', id], opts);
});

test('lanes start -- CMD: the command gets the session environment too', async () => {
  if (process.platform !== 'linux') return;
  const { repo, env } = await world();
  const child = new Child(process.execPath, [CLI, 'start', '--ticket', 'SHOP-8', '--json', '--', 'sleep', '600'], {
    env,
    cwd: repo,
  });
  await child.waitFor(/^\}$/m, 'stderr');
  const started = JSON.parse(child.stderr.slice(child.stderr.indexOf('{'))) as { id: string };
  assertSessionEnvironment(agentEnvironment(child.proc.pid!), started.id, repo, 'shop-8');
  child.proc.kill('SIGTERM');
  await child.exited;
});

test(
  'lanes new in tmux: the environment reaches the agent over a socket, and nothing of it stays on disk',
  { skip: needs('tmux', haveTmux()) },
  async () => {
    if (process.platform !== 'linux') return;
    const { repo, env } = await world();
    const tmuxEnv: Record<string, string> = {
      ...env,
      TMUX_TMPDIR: tmp('lanes-tmux-'),
      FOO_API_KEY: 'sk-on-disk-never',
      OTHER_SECRET: 'shh-42',
    };
    delete tmuxEnv['TMUX'];
    const r = await lanes(['new', 'SHOP-9', '--json', '--', 'sleep', '600'], { env: tmuxEnv, cwd: repo });
    assert.equal(r.code, 0, r.stderr);
    const id = (JSON.parse(r.stdout) as { session: string }).session;
    const [s] = JSON.parse((await lanes(['ls', '--json'], { env: tmuxEnv, cwd: repo })).stdout) as {
      owner: { pid: number };
    }[];
    const agent = agentEnvironment(s!.owner.pid);
    assert.equal(agent['OTHER_SECRET'], 'shh-42', 'the caller’s environment reached the agent');
    assert.equal(agent['FOO_API_KEY'], undefined);
    // No file under the lanes home or the runtime directory holds any of it.
    const grep = spawnSync('grep', ['-rl', 'shh-42', tmuxEnv['LANES_HOME']!], { encoding: 'utf8' });
    assert.equal(grep.stdout.trim(), '', `found on disk: ${grep.stdout}`);
    await lanes(['stop', id], { env: tmuxEnv, cwd: repo });
  },
);

test(
  'lanes new when tmux fails to start the session: refused, and nothing of the environment stays on disk',
  { skip: needs('tmux', haveTmux()) },
  async () => {
    const { repo, env } = await world();
    const real = execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim();
    const bin = tmp('lanes-fake-tmux-');
    // tmux that answers everything but refuses to start a session (a full socket directory, a limit).
    writeFileSync(
      join(bin, 'tmux'),
      `#!/bin/sh\n[ "$1" = new-session ] && { echo "no server" >&2; exit 1; }\nexec ${real} "$@"\n`,
    );
    chmodSync(join(bin, 'tmux'), 0o755);
    const e: Record<string, string> = {
      ...env,
      PATH: `${bin}:${env['PATH']}`,
      TMUX_TMPDIR: tmp('lanes-tmux-'),
      OTHER_SECRET: 'shh-43',
    };
    delete e['TMUX'];
    const r = await lanes(['new', 'SHOP-10', '--', 'sleep', '600'], { env: e, cwd: repo });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /tmux could not start the session/);
    const grep = spawnSync('grep', ['-rl', 'shh-43', e['LANES_HOME']!], { encoding: 'utf8' });
    assert.equal(grep.stdout.trim(), '', `found on disk: ${grep.stdout}`);
  },
);
