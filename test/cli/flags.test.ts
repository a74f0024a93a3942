// Every command's flag parsing, apart from its behaviour: each command runs in-process against a
// library that records its first call (test/helpers/seam.ts). Accepted flags must reach the library
// as the right call with the right options; bad flags must exit 2 before reaching it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli/registry.js';
import { runWithSeam } from '../helpers/seam.js';
import { hookLanesCommand } from '../../src/cli/lanes-command.js';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { claimsToFill } from '../../src/cli/commands/ls.js';
import { terminalWidth } from '../../src/cli/layout.js';

const dir = tmp('lanes-flags-');
const file = join(dir, 'payload.txt');
writeFileSync(file, 'hello');
const messageFile = join(dir, 'message.txt');
writeFileSync(messageFile, 'from a file\n');

/** [argv, library call path, its arguments (compared with deepEqual; an AbortSignal is dropped)] */
const accepted: [string[], string, unknown[]][] = [
  [
    ['start', '--ticket', 'T-1', '--label', 'L', '--agent', 'codex', '--pid', String(process.pid)],
    'sessions.start',
    [{ pid: process.pid, label: 'L', agent: 'codex', ticket: 'T-1', join: false, command: null }],
  ],
  [
    ['start', '--worktree', '--base', 'main', '--ticket', 'T-1', '--join', '--pid', String(process.pid)],
    'sessions.start',
    [
      {
        pid: process.pid,
        label: null,
        agent: null,
        ticket: 'T-1',
        join: true,
        command: null,
        newWorktree: { base: 'main' },
      },
    ],
  ],
  // The table reads the claims that fill its widest column (this process' width: the seam runs here).
  [
    ['ls', '--all'],
    'sessions.rowPages',
    [{ all: true, claimsShown: claimsToFill(terminalWidth()), nest: true, size: 1000 }],
  ],
  [['ls'], 'sessions.overview', [{ claimsShown: claimsToFill(terminalWidth()) }]],
  [['ls', '--json'], 'sessions.rowPages', [{ all: false, claimsShown: 0 }]],
  [['gc', '--dry-run', '--limit', '5'], 'gc', [{ dryRun: true, limit: 5 }]],
  [['gc'], 'gc', [{ dryRun: false }]],
  [
    ['end', 's-abc', '--reason', 'done', '--remove-worktree', '--force'],
    'sessions.end',
    [
      's-abc',
      { reason: 'done', removeWorktree: true, force: true, forceLive: true, by: 'lanes end', skipSnapshot: false },
    ],
  ],
  [
    ['end', 's-abc', '--skip-snapshot'],
    'sessions.end',
    [
      's-abc',
      {
        reason: 'ended by lanes end',
        removeWorktree: false,
        force: false,
        forceLive: false,
        by: 'lanes end',
        skipSnapshot: true,
      },
    ],
  ],
  [['end'], 'sessions.current', []],
  [['whoami'], 'sessions.current', []],
  [
    ['claim', 'ticket:A', 'path:x/', '--wait=30s', '--scope', 'repo', '--session', 's-1'],
    'claims.claim',
    [['ticket:A', 'path:x/'], { wait: true, timeoutMs: 30_000, scope: 'repo', session: 's-1' }],
  ],
  [['claim', 'ticket:A', '--wait'], 'claims.claim', [['ticket:A'], { wait: true }]],
  [['claim', 'ticket:A'], 'claims.claim', [['ticket:A'], { wait: false }]],
  [['release', 'ticket:A', '--session', 's-1'], 'claims.release', [['ticket:A'], { session: 's-1' }]],
  [['claims', '--all'], 'claims.list', [{ all: true }]],
  [['check', 'ticket:A', '--scope', 'repo'], 'claims.check', ['ticket:A', { scope: 'repo' }]],
  [['state', 'get', '--session', 's-1'], 'state.get', ['s-1']],
  [['state', 'get', 'k', '--session', 's-1'], 'state.getKey', ['s-1', 'k']],
  [
    ['state', 'set', 'k', '{"a":[1,"é"]}', '--session', 's-1', '--timeout', '2s'],
    'state.setKey',
    ['s-1', 'k', { a: [1, 'é'] }, { timeoutMs: 2000 }],
  ],
  [['state', 'clear', '--session', 's-1'], 'state.clear', ['s-1', {}]],
  [['state', 'clear', 'k', '--session', 's-1'], 'state.clearKey', ['s-1', 'k', {}]],
  [['state', 'get'], 'sessions.current', []],
  [['handoff', 'put', 'meta.json', file], 'handoffs.put', ['meta.json', Buffer.from('hello'), {}]],
  [['handoff', 'get', 'meta.json', '--from', 's-2'], 'handoffs.get', ['meta.json', { from: 's-2' }]],
  [['path', 'meta.json', '--session', 's-1'], 'handoffs.path', ['meta.json', { session: 's-1' }]],
  [['commit', '-m', 'msg', '--', 'a b', 'c'], 'commit', [['a b', 'c'], 'msg']],
  [['commit', '-F', messageFile, 'a'], 'commit', [['a'], 'from a file\n']],
  [['snapshot', '--session', 's-1'], 'snapshots.snapshot', [{ session: 's-1' }]],
  [['snapshot'], 'snapshots.snapshot', [{}]],
  [['snapshots', '--session', 's-1'], 'snapshots.list', ['s-1']],
  [['restore', 's-1/2', '--into', '/tmp/x'], 'snapshots.restore', ['s-1/2', '/tmp/x']],
  [['sweep', '-n'], 'sweep', [{ dryRun: true }]],
  [['conflicts', '--against', 'dev'], 'conflicts', [{ against: 'dev' }]],
  [['land', '--into', 'main', '--squash'], 'land', [{ into: 'main', mode: 'squash' }]],
  [['land'], 'land', [{}]],
  [['adopt', 's-1'], 'sessions.get', ['s-1']],
  [['guard', 'status'], 'guard.status', []],
  [['guard', 'uninstall'], 'guard.uninstall', []],
  [['doctor', '--fix'], 'doctor', [{ fix: true, lanesCommand: hookLanesCommand() }]],
  [['doctor'], 'doctor', [{ fix: false }]],
  [['port', 'web'], 'ports.lease', ['web']],
  [['ports'], 'ports.list', []],
  [['env', '--shell', 'fish', '--session', 's-1'], 'environment', [{ session: 's-1', inherited: process.env }]],
  [['exec', '--session', 's-1', '--', 'true'], 'environment', [{ session: 's-1', inherited: process.env }]],
];

/** [argv, what the message must say] — each exits 2 without reaching the library. */
const refused: [string[], RegExp][] = [
  [['start', '--pid', 'abc'], /--pid must be a process id/],
  [['start', '--pid', '1', '--', 'sh'], /exclude each other/],
  [['start', '--base', 'main'], /--base goes with --worktree/],
  [['start', '--join'], /--join goes with --ticket/],
  [['start', 'extra'], /unexpected argument "extra"/],
  [['ls', 'x'], /unexpected argument/],
  [['ui', '--port', 'abc'], /--port must be a number from 0 to 65535, got "abc"/],
  [['ui', '--port', '65536'], /--port must be a number from 0 to 65535/],
  [['ui', '--host', 'a b'], /--host must be an address or host name/],
  [['ui', 'x'], /unexpected argument "x"/],
  [['stop'], /missing arguments/],
  [['end', 'a', 'b'], /unexpected argument "b"/],
  [['whoami', 'x'], /unexpected argument/],
  [['claim'], /missing arguments/],
  [['claim', 'ticket:A', '--scope', 'host'], /--scope takes only "repo"/],
  [['claim', 'ticket:A', '--wait=soon'], /--wait: cannot read "soon" as a duration/],
  [['claim', 'ticket:A', '--', 'x'], /does not take `-- ARGS`/],
  [['release'], /missing arguments/],
  [['claims', 'x'], /unexpected argument/],
  [['check'], /missing arguments/],
  [['check', 'a', 'b'], /unexpected argument "b"/],
  [['state', 'frob'], /unknown action "frob"/],
  [['state', 'set', 'k', '--session', 's-1'], /set needs KEY and JSON/],
  [['state', 'set', 'k', 'not json', '--session', 's-1'], /not valid JSON/],
  [['state', 'get', 'a', 'b', '--session', 's-1'], /get takes at most a KEY/],
  [['state', 'set', 'k', '1', '--session', 's-1', '--timeout', 'soon'], /--timeout: cannot read "soon"/],
  [['handoff', 'put'], /missing arguments/],
  [['handoff', 'put', 'n', file, '--from', 's-1'], /--from goes with get/],
  [['handoff', 'frob', 'n'], /unknown action "frob"/],
  [['handoff', 'get', 'n', 'extra'], /get takes only NAME/],
  [['path'], /missing arguments/],
  [['commit', 'a'], /exactly one of -m MSG or -F FILE/],
  [['commit', '-m', 'x', '-F', messageFile, 'a'], /exactly one of -m MSG or -F FILE/],
  [['commit', '-m', 'x'], /name the paths to commit/],
  [['snapshot', 'x'], /unexpected argument/],
  [['snapshots', 'x'], /unexpected argument/],
  [['restore'], /missing arguments/],
  [['sweep', 'x'], /unexpected argument/],
  [['conflicts', 'x'], /unexpected argument/],
  [['land', '--ff', '--merge'], /choose one of --ff, --merge, --squash/],
  [['adopt'], /missing arguments/],
  [['guard', 'frob'], /unknown action "frob"/],
  [['guard', 'status', '--protect', 'main'], /--protect goes with install/],
  [['doctor', 'x'], /unexpected argument/],
  [['port'], /missing arguments/],
  [['ports', 'x'], /unexpected argument/],
  [['env', '--shell', 'tcsh'], /--shell takes sh, fish, json or dotenv/],
  [['exec'], /give the command after --/],
  [['exec', 'true'], /unexpected argument "true"/],
  [['hooks', 'frob'], /unknown action "frob"/],
  [['hooks', 'status', '--command', 'x'], /--command goes with install/],
  [['hooks', 'install', 'nosuch'], /unknown agent "nosuch"/],
  [['hooks', 'install', 'claude-code', '--command', ' '], /--command must be one non-empty line/],
  [['store'], /missing arguments/],
  [['store', 'frob'], /unknown action "frob"/],
  [['store', 'copy', '--from', 'a.db'], /copy needs --from and --to/],
  [['store', 'status', '--force'], /--from, --to and --force go with copy/],
  [['demo', 'x'], /unexpected argument/],
];

const strip = (v: unknown): unknown => {
  if (v instanceof AbortSignal) return undefined;
  if (Buffer.isBuffer(v) || v === null || typeof v !== 'object' || Array.isArray(v) || v === process.env) return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'signal'));
};

test('accepted flags reach the library as the right call with the right options', async () => {
  for (const [argv, path, args] of accepted) {
    const r = await runWithSeam(argv);
    assert.ok(r.call, `${argv.join(' ')}: never reached the library (exit ${r.code}): ${r.stderr}`);
    assert.equal(r.call.path, path, argv.join(' '));
    assert.deepEqual(r.call.args.map(strip), args, argv.join(' '));
  }
});

test('bad flags exit 2 with a message naming the command and the problem, before reaching the library', async () => {
  for (const [argv, message] of refused) {
    const r = await runWithSeam(argv);
    assert.equal(r.code, 2, `${argv.join(' ')}: exit ${r.code}, stderr ${r.stderr}`);
    assert.equal(r.call, null, `${argv.join(' ')} reached the library (${r.call?.path})`);
    assert.match(r.stderr, message, argv.join(' '));
    assert.match(r.stderr, new RegExp(`lanes: error: (${argv[0]}: )?`), argv.join(' '));
  }
});

test('every command: an unknown flag exits 2 (lanes hook: 0, it always allows), --help exits 0 with its usage', async () => {
  for (const { name } of COMMANDS) {
    const bad = await runWithSeam([name, '--no-such-flag']);
    assert.equal(bad.code, name === 'hook' ? 0 : 2, `${name}: ${bad.stderr}`);
    assert.match(bad.stderr, name === 'hook' ? /failed open/ : new RegExp(`${name}: unknown option '--no-such-flag'`));
    const help = await runWithSeam([name, '--help']);
    assert.equal(help.code, 0, name);
    assert.match(help.stdout, new RegExp(`^lanes ${name}\\b`), name);
    assert.equal(help.call, null);
  }
});

test('--json errors are JSON on stdout; --store reaches openLanes; the hook command fails open', async () => {
  const json = await runWithSeam(['claim', '--json']);
  assert.equal(json.code, 2);
  assert.equal(JSON.parse(json.stdout).error.code, 'E_USAGE');
  const store = await runWithSeam(['ls', '--store', '/tmp/elsewhere.db']);
  assert.equal(store.opened?.store, '/tmp/elsewhere.db');
  const hook = await runWithSeam(['hook', 'nosuch-agent', 'pre-tool-use']);
  assert.equal(hook.code, 0);
  assert.match(hook.stderr, /failed open \(the call was allowed\): unknown agent "nosuch-agent"/);
  const unknown = await runWithSeam(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
});

test("a careless user's commands through the real binary: a typo is told its nearest command, `help CMD` is CMD's help, an empty path or ticket is named as empty", async () => {
  const typo = await lanes(['clam', 'lock:x']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown command "clam"\n {2}fix: did you mean `lanes claim`\? see `lanes --help`/);
  const tied = await lanes(['stat']);
  assert.match(tied.stderr, /did you mean `lanes start` or `lanes state`/);
  const far = await lanes(['xyzzy']);
  assert.equal(far.code, 2);
  assert.doesNotMatch(far.stderr, /did you mean/);
  const json = JSON.parse((await lanes(['clam', '--json'])).stdout) as { error: { code: string; hint: string } };
  assert.deepEqual([json.error.code, json.error.hint.startsWith('did you mean `lanes claim`?')], ['E_USAGE', true]);
  const help = await lanes(['help', 'claim']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^lanes claim RESOURCE/);
  assert.equal((await lanes(['help', 'clam'])).code, 2, "an unknown command's help is the typo error");
  const env = lanesEnv();
  const repo = gitRepo();
  const ticket = await lanes(['start', '--ticket', ''], { env, cwd: repo });
  assert.equal(ticket.code, 2);
  assert.match(ticket.stderr, /fix: give --ticket a value, or leave it out/);
  const id = (await lanes(['start', '--label', 'careless'], { env, cwd: repo })).stdout.trim();
  const path = await lanes(['claim', 'path:'], { env: { ...env, LANES_SESSION: id }, cwd: repo });
  assert.equal(path.code, 2);
  assert.match(path.stderr, /resource "path:": the name after ":" is empty/);
});
