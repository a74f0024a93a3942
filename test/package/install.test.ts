import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { Child, ROOT, gitRepo, run, tmp } from '../helpers/env.js';
import type { RunResult } from '../helpers/env.js';
import { fixture } from '../helpers/hooks.js';
import { http } from '../helpers/ui.js';

// The package as users get it (issue 10): `npm pack`, `npm install -g <tarball> --prefix DIR`, and
// every command run through DIR/bin/lanes, the bin symlink, from a cwd outside the checkout with
// an environment that points nowhere into it. Needs the build (npm test builds first) and the
// registry for the dependencies (the default npm cache makes them quick); nothing is compiled or
// downloaded beyond them (the store runs on Node's own SQLite).

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const work = tmp('lanes-package-');
const prefix = join(work, 'prefix');
const bin = join(prefix, 'bin', 'lanes');
const installed = join(prefix, 'lib', 'node_modules', pkg.name);
const outside = join(work, 'cwd');
let packedFiles: string[] = [];

/** The caller's environment minus everything that could point into the checkout or steer npm or lanes. */
function cleanEnv(): Record<string, string> {
  const inCheckout = [ROOT, realpathSync(ROOT), realpathSync(join(ROOT, 'node_modules'))];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v === undefined ||
      k.startsWith('LANES_') ||
      k.startsWith('npm_') ||
      ['NODE_PATH', 'NODE_OPTIONS', 'INIT_CWD', 'XDG_RUNTIME_DIR'].includes(k)
    )
      continue;
    env[k] = v;
  }
  // The Node running the tests first (a user's `node` on PATH): the bin's `#!/usr/bin/env node`
  // must not find an older one the machine has (lanes refuses Node 20).
  env['PATH'] = [
    dirname(process.execPath),
    ...(process.env['PATH'] ?? '').split(delimiter).filter((d) => d && !inCheckout.some((c) => d.startsWith(c))),
  ].join(delimiter);
  return env;
}

/** As a user with the global bin on PATH, with lanes' store, config and code cache in a fresh home. */
function userEnv(): Record<string, string> {
  const home = tmp('lanes-package-home-');
  const env = cleanEnv();
  env['PATH'] = `${join(prefix, 'bin')}${delimiter}${env['PATH']}`;
  return {
    ...env,
    LANES_HOME: join(home, 'state'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    NO_COLOR: '1',
  };
}

function npm(args: string[], cwd: string): string {
  // Synchronous, so the test's own timeout cannot interrupt it: bounded here.
  const r = spawnSync('npm', args, {
    cwd,
    env: cleanEnv(),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 14 * 60_000,
  });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}

const lanes = (
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; input?: string } = {},
): Promise<RunResult> =>
  run(bin, args, {
    env: options.env ?? userEnv(),
    cwd: options.cwd ?? outside,
    ...(options.input !== undefined ? { input: options.input } : {}),
  });

let installedOk = false;

/** Every later test runs the installed copy; a failed install fails them with that reason. */
function needInstall(): void {
  if (!installedOk) throw new Error('the package did not install (see the first test)');
}

test('npm pack, then npm install -g of the tarball into a temporary prefix', { timeout: 15 * 60_000 }, (t) => {
  assert.ok(existsSync(join(ROOT, 'dist', 'cli.cjs')), 'build first: npm run build');
  mkdirSync(outside, { recursive: true });
  // --ignore-scripts: dist is the build under test; a prepack build here would rewrite dist under other running tests.
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT)) as {
    filename: string;
    files: { path: string }[];
  }[];
  packedFiles = packed[0]!.files.map((f) => f.path);
  const t0 = performance.now();
  npm(['install', '-g', join(work, packed[0]!.filename), '--prefix', prefix, '--no-audit', '--no-fund'], outside);
  t.diagnostic(`npm install -g of the tarball took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // Nothing native anywhere in the install: no addon downloaded or built.
  const native = execFileSync('find', [prefix, '-name', '*.node'], { encoding: 'utf8' }).trim();
  assert.equal(native, '', 'no native addon installed');
  installedOk = true;
});

test('the tarball holds what a user needs and nothing of the checkout', () => {
  needInstall();
  for (const f of [
    'package.json',
    'README.md',
    'LICENSE',
    'dist/cli.cjs',
    'dist/main.cjs',
    'dist/hot.cjs',
    'dist/quick.cjs',
    'dist/worker.js',
    'dist/pg.cjs',
    'dist/ui.cjs',
    'dist/ui/app.js',
    'dist/ui/app.css',
    'dist/index.js',
    'dist/types/index.d.ts',
  ]) {
    assert.ok(packedFiles.includes(f), `${f} is packed`);
  }
  assert.deepEqual(
    packedFiles.filter(
      (f) => !/^(package\.json|README\.md|LICENSE|dist\/.*)$/.test(f) || f.startsWith('dist/types/cli/'),
    ),
    [],
  );
  // Nothing installed names the checkout it was built in.
  for (const f of readdirSync(join(installed, 'dist'), { recursive: true, encoding: 'utf8' })) {
    if (/\.(c?js|map|d\.ts)$/.test(f))
      assert.ok(!readFileSync(join(installed, 'dist', f), 'utf8').includes(ROOT), `${f} names ${ROOT}`);
  }
  assert.match(readlinkSync(bin), /dist\/cli\.cjs$/, 'bin/lanes is the symlink npm makes');
});

test("lanes --version through the bin symlink is package.json's version", async () => {
  needInstall();
  const r = await lanes(['--version']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), `lanes ${pkg.version}`);
});

test('lanes demo through the bin symlink: every check held', { timeout: 180_000 }, async () => {
  needInstall();
  const r = await lanes(['demo']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^all \d+ checks held$/m);
});

test(
  'lanes hook claude-code pre-tool-use answers a sample payload: a deny for a path another session claimed',
  { timeout: 60_000 },
  async () => {
    needInstall();
    const repo = gitRepo();
    mkdirSync(join(repo, 'src', 'billing'), { recursive: true });
    writeFileSync(join(repo, 'src', 'billing', 'seat.ts'), 'export const limit = 1\n');
    const env = userEnv();
    const a = 'aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa';
    const started = await lanes(['hook', 'claude-code', 'session-start'], {
      env,
      cwd: repo,
      input: JSON.stringify(fixture('claude-code', 'session-start', repo, a)),
    });
    assert.equal(started.code, 0, started.stderr);
    const claimed = await lanes(['claim', 'path:src/billing/'], {
      env: { ...env, LANES_SESSION: `claude-code:${a}` },
      cwd: repo,
    });
    assert.equal(claimed.code, 0, claimed.stderr + claimed.stdout);
    const payload = fixture('claude-code', 'pre-tool-use-edit', repo, 'bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb');
    const r = await lanes(['hook', 'claude-code', 'pre-tool-use'], { env, cwd: repo, input: JSON.stringify(payload) });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /failed open/);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: Record<string, string> };
    assert.equal(out.hookSpecificOutput['hookEventName'], 'PreToolUse');
    assert.equal(out.hookSpecificOutput['permissionDecision'], 'deny');
    assert.match(
      out.hookSpecificOutput['permissionDecisionReason'] ?? '',
      new RegExp(`src/billing/seat.ts is claimed by session claude-code:${a}`),
    );
  },
);

test('lanes hooks install claude-code --dry-run shows the change and writes nothing', { timeout: 60_000 }, async () => {
  needInstall();
  const repo = gitRepo();
  const env = userEnv();
  const r = await lanes(['hooks', 'install', 'claude-code', '--dry-run'], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /"command": "lanes hook claude-code pre-tool-use"/);
  assert.match(r.stdout, /^dry run: nothing was written$/m);
  assert.doesNotMatch(r.stdout, /not on PATH/, 'the installed bin/lanes is found on PATH');
  assert.equal(existsSync(join(repo, '.claude')), false);
  assert.equal(execFileSync('git', ['status', '--porcelain', '--ignored'], { cwd: repo, encoding: 'utf8' }), '');
  assert.equal(existsSync(join(env['LANES_HOME']!, 'hooks-installed.json')), false);
});

test(
  'lanes guard install through the bin symlink writes a hook that runs lanes through that link, and git runs it',
  { timeout: 60_000 },
  async () => {
    needInstall();
    const repo = gitRepo();
    const env = userEnv();
    const r = await lanes(['guard', 'install'], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const hook = readFileSync(join(repo, '.git', 'hooks', 'pre-commit'), 'utf8');
    assert.ok(hook.includes(`'${bin}' guard check-commit`), hook);
    writeFileSync(join(repo, 'x.txt'), 'x\n');
    execFileSync('git', ['add', 'x.txt'], { cwd: repo, env });
    const commit = spawnSync('git', ['commit', '-q', '-m', 'x'], { cwd: repo, env, encoding: 'utf8' });
    assert.equal(commit.status, 0, commit.stderr);
  },
);

test('the library imports from the installed package and opens a store', { timeout: 60_000 }, async () => {
  needInstall();
  const env = userEnv();
  const script = `import { openLanes } from ${JSON.stringify(join(installed, 'dist', 'index.js'))};
const lanes = await openLanes({ store: ${JSON.stringify(join(env['LANES_HOME']!, 'lib.db'))}, session: null });
const s = await lanes.sessions.start({ pid: process.pid, label: 'library' });
await lanes.sessions.end(s.id, 'done');
await lanes.close();
console.log('ok ' + s.id);`;
  const r = await run(process.execPath, ['--input-type=module', '-e', script], { env, cwd: outside });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ok s-/);
});

test('lanes ui through the bin symlink serves the page and its script', { timeout: 60_000 }, async () => {
  needInstall();
  const ui = new Child(bin, ['ui', '--json', '--port', '0'], { env: userEnv(), cwd: outside });
  const [line] = await ui.waitFor(/^\{.*"url".*\}$/m, 'stdout', 30_000);
  const { url, port } = JSON.parse(line ?? '') as { url: string; port: number };
  const page = await http(port, new URL(url).pathname + new URL(url).search);
  assert.equal(page.status, 200, page.body);
  assert.match(page.body, /<script defer src="\/assets\/app\.js">/);
  const script = await http(port, '/assets/app.js');
  assert.equal(script.status, 200);
  assert.ok(script.body.length > 1000, 'the bundled page script');
  ui.proc.kill('SIGINT');
  assert.equal((await ui.exited).code, 0, ui.stderr);
});

// Last: it breaks the installed copy on purpose.
test('a demo step that fails makes the installed lanes demo exit 1 with the reason', { timeout: 120_000 }, async () => {
  needInstall();
  rmSync(join(installed, 'dist', 'worker.js'));
  const r = await lanes(['demo']);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    /lanes demo: FAILED: step 1 \(handoff cross-talk\) ran to the end: the demo's worker .*worker\.js is missing/,
  );
  assert.match(r.stdout, /2 of \d+ checks FAILED/);
});

test("the installed lanes runs its store on Node's own SQLite, and says so", async () => {
  needInstall();
  const r = await lanes(['store', 'status', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).driver, 'node:sqlite');
  assert.equal(r.stderr, '', 'no warning on stderr (Node 22 flags node:sqlite experimental)');
});

test('npx of the packed tarball runs lanes demo, from outside the checkout', { timeout: 300_000 }, async () => {
  needInstall();
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
  // Not the installed bin on PATH: npx makes its own install of the tarball.
  const env: Record<string, string> = { ...userEnv(), PATH: cleanEnv()['PATH']!, npm_config_update_notifier: 'false' };
  // As docs/install.md writes it: npx ./lanes-0.1.0.tgz demo, beside the tarball.
  const r = await run('npx', ['--yes', `./${tarball}`, 'demo'], { env, cwd: work });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /all \d+ checks held/);
});
