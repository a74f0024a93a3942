import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { CLI, ROOT, gitRepo, lanesEnv, run, tmp } from '../helpers/env.js';

// `lanes exec` and `lanes hook` run in every agent tool call, `lanes statusline` after every message: each Node built-in they load costs
// start-up time (node:fs/promises alone pulls in readline and the file watchers, ~5 ms measured on
// exec). This pins what they must not load; bench/hook.mjs and bench/runtime.mjs measure the time.
// exec starts its command without node:child_process (core/spawn-inherit.ts), which loads net,
// dgram and the streams itself.
const FORBIDDEN = [
  'internal/fs/promises',
  'readline',
  'internal/readline/interface',
  'tty',
  'http',
  'perf_hooks',
  'internal/perf/performance',
];

// Loaded by `node -e 0` too on some Nodes, but by nothing lanes needs for a pre-edit check or exec: node:os
// (its homedir and hostname are read without it), node:module (createRequire; process.getBuiltinModule
// needs none) and its source-map support, the AbortController (made only when a command waits).
const FORBIDDEN_IN_HOOK = ['os', 'module', 'internal/source_map/source_map', 'internal/abort_controller'];

function loadedBuiltins(listFile: string): string[] {
  return readFileSync(listFile, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('NativeModule '))
    .map((l) => l.slice('NativeModule '.length));
}

test('lanes exec, lanes hook pre-tool-use and lanes statusline load none of the costly built-ins', async () => {
  const dir = tmp('lanes-hot-');
  const preload = join(dir, 'modules.cjs');
  writeFileSync(
    preload,
    // beforeExit fires only when Node exits by itself (see the quick exit below).
    "let natural = false; process.on('beforeExit', () => { natural = true; });\n" +
      "process.on('exit', () => require('fs').writeFileSync(process.env.LIST, [...process.moduleLoadList, ...(globalThis.segmenters ? ['Intl.Segmenter made'] : []), natural ? 'EXIT natural' : 'EXIT quick'].join('\\n')));\n" +
      // string-width makes one at load: ICU's segmentation data cost ~20 ms of every hook call on Node 24.
      'Intl.Segmenter = new Proxy(Intl.Segmenter, { construct(t, a) { globalThis.segmenters = true; return new t(...a); } });\n',
  );
  const repo = gitRepo();
  const env = lanesEnv();
  const start = await run(process.execPath, [CLI, 'start', '--pid', String(process.pid)], { env, cwd: repo });
  assert.equal(start.code, 0, start.stderr);
  const asS = { ...env, LANES_SESSION: start.stdout.trim() };
  const payload = JSON.stringify({
    session_id: 'hot-1',
    cwd: repo,
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, 'README.md') },
  });
  const calls: [string, string[], string | undefined][] = [
    ['exec', ['exec', '--', 'true'], undefined],
    ['hook', ['hook', 'claude-code', 'pre-tool-use'], payload],
    ['statusline', ['statusline'], JSON.stringify({ session_id: 'hot-1', workspace: { current_dir: repo } })],
  ];
  for (const [name, args, input] of calls) {
    const list = join(dir, `${name}.txt`);
    const r = await run(process.execPath, ['-r', preload, CLI, ...args], {
      env: { ...asS, LIST: list, CLAUDE_PID: String(process.pid) },
      cwd: repo,
      ...(input ? { input } : {}),
    });
    assert.equal(r.code, 0, r.stderr);
    const loaded = loadedBuiltins(list);
    assert.ok(loaded.includes('fs') && loaded.includes('vm'), `${name}: the list is read (${loaded.length} modules)`);
    for (const m of FORBIDDEN) assert.ok(!loaded.includes(m), `lanes ${name} loaded node:${m}`);
    if (name !== 'statusline')
      for (const m of FORBIDDEN_IN_HOOK) assert.ok(!loaded.includes(m), `lanes ${name} loaded node:${m}`);
    assert.ok(!readFileSync(list, 'utf8').includes('Intl.Segmenter made'), `lanes ${name} set up string-width`);
    // Each answers with writeSync (exec's child writes itself): no stdout stream is set up (on a
    // pipe that loads net and streams), no child_process (exec's command is started through libuv's
    // process handle), and with nothing left to flush it exits at once, without
    // the isolate's teardown (src/cli/quick-exit.ts).
    for (const m of ['net', 'stream', 'child_process'])
      assert.ok(!loaded.includes(m), `lanes ${name} loaded node:${m}`);
    assert.equal(readFileSync(list, 'utf8').split('\n').pop(), 'EXIT quick', `lanes ${name} exits at once`);
  }
  // A hot command that wrote through process.stdout is left to Node's own exit, which flushes it.
  const list = join(dir, 'help.txt');
  const help = await run(process.execPath, ['-r', preload, CLI, 'hook', '--help'], { env: { ...asS, LIST: list } });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^lanes hook\b[\s\S]*failed open|fails open/);
  assert.equal(readFileSync(list, 'utf8').split('\n').pop(), 'EXIT natural', 'a written stream is left to flush');
});

test('the MCP server and its SDK are in dist/mcp.cjs only, never in the hot or the main bundle', () => {
  const marker = 'notifications/tools/list_changed'; // an MCP method name, in the SDK's code
  const read = (f: string) => readFileSync(join(ROOT, 'dist', f), 'utf8');
  assert.ok(read('mcp.cjs').includes(marker), 'the marker is found where the SDK is');
  for (const f of ['hot.cjs', 'quick.cjs', 'main.cjs', 'cli.cjs'])
    assert.ok(!read(f).includes(marker), `the MCP SDK is in dist/${f}`);
  assert.match(read('main.cjs'), /require\("\.\/mcp\.cjs"\)/, 'lanes mcp requires its own bundle');
});

test("the dashboard's server (Hono) is in dist/ui.cjs only, never in the hot or the main bundle", () => {
  const marker = 'text/event-stream'; // the event stream's content type, in Hono's streaming helper
  const read = (f: string) => readFileSync(join(ROOT, 'dist', f), 'utf8');
  assert.ok(read('ui.cjs').includes(marker), 'the marker is found where Hono is');
  for (const f of ['hot.cjs', 'quick.cjs', 'main.cjs', 'cli.cjs', 'mcp.cjs'])
    assert.ok(!read(f).includes(marker), `the dashboard's server is in dist/${f}`);
  assert.match(read('main.cjs'), /require\("\.\/ui\.cjs"\)/, 'lanes ui requires its own bundle');
});

test('lanes ls sets up string-width only for text past plain ASCII (colours included), and measures that text', async () => {
  const dir = tmp('lanes-ls-width-');
  const preload = join(dir, 'segmenter.cjs');
  writeFileSync(
    preload,
    "Intl.Segmenter = new Proxy(Intl.Segmenter, { construct(t, a) { require('fs').writeFileSync(process.env.MARK, 'made'); return new t(...a); } });\n",
  );
  const repo = gitRepo();
  const env: Record<string, string> = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off', FORCE_COLOR: '1' };
  delete env['NO_COLOR'];
  const plain = await run(process.execPath, [CLI, 'start', '--label', 'plain', '--pid', String(process.pid)], {
    env,
    cwd: repo,
  });
  assert.equal(plain.code, 0, plain.stderr);
  const ls = async (mark: string) => {
    const r = await run(process.execPath, ['-r', preload, CLI, 'ls'], {
      env: { ...env, MARK: join(dir, mark) },
      cwd: repo,
    });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  assert.match(await ls('plain'), /\x1b\[/, 'coloured');
  assert.throws(() => readFileSync(join(dir, 'plain')), 'no Intl.Segmenter for plain, coloured text');
  await run(process.execPath, [CLI, 'start', '--label', '账单 billing', '--pid', String(process.pid)], {
    env,
    cwd: repo,
  });
  const wide = await ls('wide');
  assert.equal(readFileSync(join(dir, 'wide'), 'utf8'), 'made', 'string-width measured the wide label');
  // Its columns still line up: the column after LABEL starts at one display column on every row.
  const rows = wide
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trimEnd()
    .split('\n');
  const at = rows.map((l) => stringWidth(l.slice(0, l.search(/ {2}\d+@/) + 2)));
  assert.equal(new Set(at).size, 1, rows.join('\n'));
});
