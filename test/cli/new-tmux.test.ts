import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { needs } from '../helpers/needs.js';
import { tmuxMissing } from '../helpers/tmux.js';

// Issue 27, item 1: lanes new/up start an agent on its ticket in its own worktree, detached in a
// real tmux (a private server: TMUX_TMPDIR), owned by lanes' wrapper; stop ends it with its work
// saved; --background without tmux; a clear error where tmux is missing. The "agent" is a shell
// that says which session it runs as and waits.

const skip = needs('tmux', tmuxMissing);
const AGENT = ['--', 'sh', '-c', 'echo "as $LANES_SESSION in $PWD"; exec sleep 300'];

function world() {
  const env = lanesEnv();
  env['TMUX_TMPDIR'] = tmp('lanes-tmux-');
  delete env['TMUX'];
  const repo = gitRepo();
  const tmux = (...args: string[]) => execFileSync('tmux', args, { env, encoding: 'utf8' }).trim();
  return { env, repo, opts: { env, cwd: repo }, tmux };
}

interface Listed {
  id: string;
  state: string;
  ticket: string;
  terminal: string | null;
  owner: { pid: number };
  worktree: string;
  endReason: string | null;
}
const list = async (opts: { env: Record<string, string>; cwd: string }, all = false) =>
  JSON.parse((await lanes(['ls', '--json', ...(all ? ['--all'] : [])], opts)).stdout) as Listed[];

test(
  'lanes new: the ticket claimed, a worktree, the agent in a tmux session owned by the wrapper; stop saves and ends',
  { skip },
  async () => {
    const { opts, tmux } = world();
    const r = await lanes(['new', 'SHOP-1', '--label', 'cart', ...AGENT], opts);
    assert.equal(r.code, 0, r.stderr);
    const [s] = await list(opts);
    assert.ok(s);
    assert.match(r.stdout, new RegExp(`^cart \\(${s.id}\\) on SHOP-1 in .*shop|^cart \\(${s.id}\\) on SHOP-1`));
    assert.match(r.stdout, new RegExp(`lanes attach ${s.id}`));
    assert.equal(s.state, 'live');
    assert.equal(s.terminal, 'tmux lanes-shop-1');
    // The pane's process is the session's owner (the wrapper), and the agent runs as the session, in its worktree.
    assert.equal(Number(tmux('list-panes', '-t', 'lanes-shop-1:', '-F', '#{pane_pid}')), s.owner.pid);
    let pane = '';
    for (let i = 0; i < 100 && !/as s-/.test(pane); i++) {
      pane = tmux('capture-pane', '-p', '-t', 'lanes-shop-1:');
      if (!/as s-/.test(pane)) await new Promise((res) => setTimeout(res, 50));
    }
    assert.match(pane, new RegExp(`as ${s.id} in ${s.worktree}`));
    const wide = await lanes(['ls'], { ...opts, env: { ...opts.env, COLUMNS: '200' } });
    assert.match(wide.stdout, new RegExp(`${s.owner.pid}@\\S+ \\(tmux lanes-shop-1\\)`));

    // The ticket is held: a second start is refused before anything starts.
    const again = await lanes(['new', 'SHOP-1', ...AGENT], opts);
    assert.equal(again.code, 3, again.stderr);
    assert.match(again.stderr, /ticket SHOP-1 is held by session .*cart/);
    assert.equal(tmux('ls', '-F', '#{session_name}'), 'lanes-shop-1', 'no second tmux session');

    // stop: the agent is asked to exit, its work saved, the session ended, the tmux session gone.
    writeFileSync(join(s.worktree, 'wip.ts'), 'half done\n');
    const stopped = await lanes(['stop', s.id, '--json'], opts);
    assert.equal(stopped.code, 0, stopped.stderr);
    const out = JSON.parse(stopped.stdout) as { snapshot: string | null; endReason: string };
    assert.equal(out.snapshot, `${s.id}/1`);
    assert.match(out.endReason, /SIGTERM/);
    const [ended] = await list(opts, true);
    assert.equal(ended!.state, 'ended');
    assert.throws(() => tmux('has-session', '-t', '=lanes-shop-1'));
    assert.equal(
      (await lanes(['claim', 'ticket:SHOP-1', '--session', (await lanes(['start'], opts)).stdout.trim()], opts)).code,
      0,
      'the ticket is free again',
    );
  },
);

test('lanes up: one per ticket; a held one is said and the others start', { skip }, async () => {
  const { opts, tmux } = world();
  assert.equal((await lanes(['new', 'T-2', ...AGENT], opts)).code, 0);
  const r = await lanes(['up', 'T-1', 'T-2', 'T-3', '--json', ...AGENT], opts);
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout) as { ticket?: string; terminal?: string; error?: { code: string } }[];
  assert.deepEqual(
    out.map((o) => o.terminal ?? o.error?.code),
    ['tmux lanes-t-1', 'E_CLAIM_HELD', 'tmux lanes-t-3'],
  );
  assert.deepEqual(tmux('ls', '-F', '#{session_name}').split('\n').sort(), ['lanes-t-1', 'lanes-t-2', 'lanes-t-3']);
  for (const s of await list(opts)) assert.equal((await lanes(['stop', s.id], opts)).code, 0);
  assert.deepEqual(
    (await list(opts, true)).map((s) => s.state),
    ['ended', 'ended', 'ended'],
  );
});

test(
  'lanes new --background: no tmux needed, the output in the session log; without tmux a clear error',
  { skip },
  async () => {
    const { opts, env } = world();
    // A PATH with node, git and sh but no tmux.
    const bin = tmp('lanes-bin-');
    for (const tool of ['git', 'sh', 'sleep'])
      symlinkSync(
        execFileSync('sh', ['-c', `command -v ${tool}`])
          .toString()
          .trim(),
        join(bin, tool),
      );
    const noTmux = { ...opts, env: { ...env, PATH: bin } };
    const refused = await lanes(['new', 'BG-1', ...AGENT], noTmux);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /tmux is not installed/);
    assert.match(refused.stderr, /apt install tmux.*--background/);
    assert.deepEqual(await list(opts, true), [], 'nothing was started');
    // lanes' project hooks go with the agent into its worktree, as with lanes start --worktree.
    assert.equal((await lanes(['hooks', 'install', 'claude-code'], opts)).code, 0);
    const r = await lanes(['new', 'BG-1', '--background', '--json', ...AGENT], noTmux);
    assert.equal(r.code, 0, r.stderr);
    const started = JSON.parse(r.stdout) as {
      session: string;
      terminal: string;
      worktree: string;
      hooks: { carried: { agent: string }[] };
    };
    assert.deepEqual(
      started.hooks.carried.map((c) => c.agent),
      ['claude-code'],
    );
    assert.match(
      readFileSync(join(started.worktree, '.claude', 'settings.json'), 'utf8'),
      /hook claude-code pre-tool-use/,
    );
    const log = started.terminal.replace(/^background /, '');
    for (let i = 0; i < 100 && !(existsSync(log) && /as s-/.test(readFileSync(log, 'utf8'))); i++)
      await new Promise((res) => setTimeout(res, 50));
    assert.match(readFileSync(log, 'utf8'), new RegExp(`as ${started.session}`));
    const attach = await lanes(['attach', started.session], opts);
    assert.equal(attach.code, 2);
    assert.match(attach.stderr, /not started in tmux.*\n.*tail -f /);
    assert.equal((await lanes(['stop', started.session], opts)).code, 0);
    assert.equal((await list(opts, true))[0]!.state, 'ended');
  },
);

test(
  "lanes new: the agent gets the caller's environment, the tmux server never the session; --store reaches it; an agent that exits at once is said",
  { skip },
  async () => {
    const { opts, env, tmux } = world();
    const store = join(tmp(), 'elsewhere.db');
    const mine = { ...opts, env: { ...env, MY_API_KEY: 'k-123', LANES_SESSION: 's-notthisone' } };
    const r = await lanes(
      ['new', 'ENV-1', '--store', store, '--', 'sh', '-c', 'echo "key=$MY_API_KEY as=$LANES_SESSION"; exec sleep 300'],
      mine,
    );
    assert.equal(r.code, 0, r.stderr);
    const [s] = JSON.parse((await lanes(['ls', '--json', '--store', store], opts)).stdout) as Listed[];
    assert.ok(s, 'the session is in the store given with --store');
    let pane = '';
    for (let i = 0; i < 100 && !/key=/.test(pane); i++) {
      pane = tmux('capture-pane', '-p', '-t', 'lanes-env-1:');
      if (!/key=/.test(pane)) await new Promise((res) => setTimeout(res, 50));
    }
    assert.match(pane, new RegExp(`key=k-123 as=${s.id}`));
    assert.doesNotMatch(
      tmux('show-environment', '-g'),
      /LANES_SESSION/,
      "the tmux server's environment names no session",
    );
    assert.equal((await lanes(['stop', s.id, '--store', store], opts)).code, 0);
    // A command that cannot run: said, and nothing left behind (no session live, no worktree, the ticket free).
    const gone = await lanes(['new', 'ENV-2', '--', 'no-such-agent-binary'], opts);
    assert.equal(gone.code, 1, gone.stdout);
    assert.match(gone.stderr, /the agent exited at once: could not run the command \(ENOENT\)/);
    const after = await list(opts, true);
    assert.deepEqual(
      after.map((x) => [x.ticket, x.state]),
      [['ENV-2', 'ended']],
    );
    assert.equal(existsSync(after[0]!.worktree), false, 'its new worktree was removed');
    assert.equal((await lanes(['new', 'ENV-2', ...AGENT], opts)).code, 0, 'the ticket is free again');
  },
);

test('lanes new: bad input is a usage error naming it', { skip }, async () => {
  const { opts } = world();
  mkdirSync(join(opts.cwd, 'x'));
  for (const [args, want] of [
    [['new'], /give the TICKET/],
    [['new', 'T-9'], /nothing to start.*\n.*--agent/],
    [['new', 'T-9', '--agent', 'vim'], /no usual command for agent "vim"/],
    [['up', 'A', 'A', '--', 'true'], /a ticket is named twice/],
    [['stop', 's-nobody00000'], /session s-nobody00000 is not known to the store/],
  ] as const) {
    const r = await lanes([...args], opts);
    assert.ok(r.code === 2 || r.code === 1, `${args.join(' ')}: ${r.code} ${r.stderr}`);
    assert.match(r.stderr, want);
  }
  assert.deepEqual(await list(opts, true), []);
});
