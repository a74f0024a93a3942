// Bundles the CLI and the library with esbuild, one file per entry. Measured: loading ~50 split
// chunks as ES modules cost more (resolution + compile per file) than parsing one 250 KB file, for
// every command that opens the store (whoami 105 -> 95 ms, exec 120 -> 97 ms; --version 68 -> 77).
// Dynamic imports stay lazy inside the bundle (esbuild wraps them in init functions). The store
// runs on Node's own node:sqlite: nothing native is bundled or required.
// LANES_SPLIT=1 builds the split variant for comparison.
import { build } from 'esbuild';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { libraryBeside, noDevtools } from './build-plugins.mjs';
import { execFileSync } from 'node:child_process';

rmSync('dist', { recursive: true, force: true });
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

// A module a bundle must not run is replaced, at build time, by one that throws if it ever runs:
// src/cli/registry.ts loads every command with a dynamic import, and dist/hot.cjs runs only the hot
// ones; the services only the cold commands reach (through the library object's lazy imports) are
// left out of it the same way: less to read, compile and collect in every tool call.
const COMMAND = /^src\/cli\/commands\/([a-z-]+)\.ts$/;
const COLD_SERVICES = new Set(
  [
    'doctor/doctor',
    'doctor/gc', // the runner reaps after ordinary commands only, never after a hot one
    'commits/guard',
    'commits/commit',
    'snapshots/sweep',
    'land/land',
    'land/queue', // lanes ready, queue, land --queue and --push: never in a tool call nor in ls
    'land/queue-run',
    'land/push',
    'land/pull-request', // lanes pr, and the pull requests' state (report, top, page)
    'land/pr-body',
    'land/pr-list',
    'land/pr-state',
    'land/gh',
    'conflicts/conflicts',
    'worktrees/worktrees', // `lanes start --worktree` only
    'worktrees/progress',
    'worktrees/gc-worktrees', // lanes gc --worktrees
    'worktrees/agent-worktrees', // Claude Code's WorktreeCreate/Remove: bin.ts sends those to main.cjs
    'worktrees/remove-named', // lanes end --remove-worktree
    'worktrees/made-by-lanes',
    'claims/waits-view',
  ].map((n) => `src/services/${n}.ts`),
  // The worktree hooks' CLI side, which bin.ts runs from main.cjs.
).add('src/cli/hook-worktree.ts');
// A name that no longer names a file (a service moved) would silently put it back in every tool call.
for (const f of COLD_SERVICES) if (!existsSync(f)) throw new Error(`build: ${f} (a cold service) does not exist`);
const stubs = (bundle, leaveOut) => ({
  name: `stubs-${bundle}`,
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (a) => {
      if (a.kind !== 'dynamic-import') return undefined;
      // Relative to the checkout: the name lands in the source map, which must not name the checkout.
      const file = relative(process.cwd(), resolve(a.resolveDir, a.path.replace(/\.js$/, '.ts')));
      return leaveOut(file) ? { path: file, namespace: 'stub' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'stub' }, (a) => ({
      contents: `throw new Error('lanes: ${a.path} is not in the ${bundle} bundle');`,
      loader: 'js',
    }));
  },
});
// The hot commands, read from the registry itself (built with every command stubbed).
const registry = await build({
  entryPoints: ['src/cli/registry.ts'],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  plugins: [stubs('registry', (file) => COMMAND.test(file))],
  logLevel: 'warning',
});
const { COMMANDS } = await import(
  `data:text/javascript;base64,${Buffer.from(registry.outputFiles[0].text).toString('base64')}`
);
const hot = new Set(COMMANDS.filter((c) => c.hot).map((c) => c.name));
const quick = new Set(COMMANDS.filter((c) => c.quick).map((c) => c.name));

const common = { bundle: true, platform: 'node', target: 'node22', sourcemap: 'linked', logLevel: 'warning' };
// The binary: CommonJS. Measured on `lanes exec -- true`: the ESM loader's facades for node:
// builtins cost every start a few milliseconds.
// string-width makes an Intl.Segmenter and a Unicode property regex as it loads (~9 ms, 155 M
// instructions, callgrind), which every command drawing a table paid (lanes ls): in the binary's
// bundles it loads at its first call (layout.ts asks it only of text past plain ASCII), for
// wrap-ansi too.
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (a) =>
      a.namespace === 'lazy-string-width' ? undefined : { path: 'string-width', namespace: 'lazy-string-width' },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, () => ({
      contents: `export default function stringWidth(...args) { return require('string-width').default(...args); }`,
      loader: 'js',
      resolveDir: process.cwd(),
    }));
  },
};
const cjs = {
  ...common,
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  define: { 'import.meta.url': '__lanesMeta.url', __LANES_VERSION__: JSON.stringify(pkg.version) },
  // jsonc-parser's CommonJS build is UMD with dynamic requires esbuild cannot follow; its ES build bundles cleanly.
  mainFields: ['module', 'main'],
  // import.meta.url made when first read: a file URL costs each start 0.13 ms (Node 24) to 0.4 ms
  // (Node 20), twice (the dispatcher and the bundle), and most commands never read it.
  banner: {
    js: 'var __lanesMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };',
  },
};
// `lanes mcp` loads the MCP server from its own bundle, so the SDK (and zod) are not read by every
// other command: the main bundle requires ./mcp.cjs instead of bundling src/mcp. `lanes ui` the same
// way: the dashboard's server (Hono) is in ./ui.cjs.
const apart = (bundle, filter) => ({
  name: `${bundle}-apart`,
  setup(b) {
    // A module that requires the bundle (the bundles run through vm.Script, which has no
    // dynamic import(): a plain require, relative to main.cjs).
    b.onResolve({ filter }, () => ({ path: bundle, namespace: `${bundle}-apart` }));
    b.onLoad({ filter: /.*/, namespace: `${bundle}-apart` }, () => ({
      contents: `module.exports = require('./${bundle}.cjs');`,
      loader: 'js',
    }));
    b.onResolve({ filter: new RegExp(`^\\./${bundle}\\.cjs$`) }, () => ({ path: `./${bundle}.cjs`, external: true }));
  },
});
await build({
  ...cjs,
  entryPoints: { main: 'src/cli/main.ts' },
  // Minified like the others since the package neared its 5.5 MB budget (issue 49's lanes pr
  // crossed it): 1.37 MB -> about half; stacks map back through main.cjs.map.
  minify: true,
  plugins: [apart('mcp', /\/mcp\/server\.js$/), apart('ui', /\/ui\/server\.js$/), lazyStringWidth],
});
await build({
  ...cjs,
  entryPoints: { mcp: 'src/mcp/server.ts' },
  minify: true,
});
await build({
  ...cjs,
  entryPoints: { ui: 'src/ui/server.ts' },
  minify: true,
});
// The dashboard's page: one script (Preact + htm) and one style sheet for the browser, served by dist/ui.cjs.
await build({
  // highlight.js: the diff view's colours, a script of its own loaded when a diff is first opened.
  entryPoints: {
    app: 'src/ui/client/main.ts',
    'app-style': 'src/ui/client/page.css',
    highlight: 'src/ui/client/highlight.ts',
  },
  outdir: 'dist/ui',
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  logLevel: 'warning',
});
renameSync('dist/ui/app-style.css', 'dist/ui/app.css');
// The hot entry is minified: less to read and compile in every tool call (stacks map back through
// hot.cjs.map with node --enable-source-maps).
await build({
  ...cjs,
  entryPoints: { hot: 'src/cli/hot.ts' },
  minify: true,
  plugins: [
    stubs('hot', (file) => COLD_SERVICES.has(file) || (COMMAND.test(file) && !hot.has(file.match(COMMAND)[1]))),
    lazyStringWidth,
  ],
});
// The quick commands (`lanes ls`) without the rest of the CLI; the runner's reaping after an
// ordinary command (doctor/gc) stays in.
await build({
  ...cjs,
  entryPoints: { quick: 'src/cli/quick.ts' },
  minify: true,
  plugins: [
    stubs(
      'quick',
      (file) =>
        (COLD_SERVICES.has(file) && file !== 'src/services/doctor/gc.ts') ||
        (COMMAND.test(file) && !quick.has(file.match(COMMAND)[1])),
    ),
    lazyStringWidth,
  ],
});
await build({
  ...cjs,
  entryPoints: { cli: 'src/cli/bin.ts' },
  external: ['./hot.cjs', './main.cjs'],
  // Minified too: V8 scans all of it on every start (no cache for the file Node loads itself).
  minify: true,
  // The dispatcher is compiled on every start without a code cache: it gets the registry's hot
  // names, not the registry.
  define: {
    ...cjs.define,
    __LANES_HOT_COMMANDS__: JSON.stringify([...hot]),
    __LANES_QUICK_COMMANDS__: JSON.stringify([...quick]),
  },
});
// pg as one file for the PostgreSQL store (loaded only with a postgres:// store): resolving its ~25
// CommonJS files cost ~10 ms of every hook call on a team store. Its optional native and Cloudflare
// back ends stay out.
await build({
  ...cjs,
  stdin: { contents: "module.exports = require('pg');", resolveDir: '.', loader: 'js' },
  outfile: 'dist/pg.cjs',
  outdir: undefined,
  external: ['pg-native', 'pg-cloudflare'],
  minify: true,
});
// `lanes top`: ink and React in an ES module of their own (ink's layout engine starts with a
// top-level await), run by the top command in a process of its own.
await build({
  ...common,
  entryPoints: { top: 'src/cli/top/main.ts' },
  outdir: 'dist',
  define: { 'process.env.NODE_ENV': '"production"' },
  outExtension: { '.js': '.mjs' },
  format: 'esm',
  minify: true,
  // Some of ink's dependencies are CommonJS that require Node's built-ins.
  banner: {
    js: "import { createRequire as __lanesRequire } from 'node:module'; const require = __lanesRequire(import.meta.url);",
  },
  plugins: [libraryBeside('src/cli/top/'), noDevtools],
});
// The library and the demo's worker: ES modules, dependencies left to the importer's node_modules.
await build({
  ...common,
  entryPoints: { worker: 'src/cli/demo/worker.ts' },
  outdir: 'dist',
  format: 'esm',
  plugins: [libraryBeside('src/cli/demo/worker.ts')],
});
await build({
  ...common,
  entryPoints: { index: 'src/index.ts' },
  outdir: 'dist',
  splitting: process.env.LANES_SPLIT === '1',
  format: 'esm',
  ...(process.env.LANES_SPLIT === '1' ? { chunkNames: 'chunks/[name]-[hash]' } : {}),
});
chmodSync('dist/cli.cjs', 0o755);
// A single character past ASCII in a bundle makes V8 decode its whole source to UTF-16 on every
// start, and hash and scan it as such (~0.5 ms of each hook call on the ~330 KB hot bundle, found
// with callgrind). esbuild escapes strings but not regex literals, and keeps comments where it does
// not minify (main.cjs).
for (const f of ['cli', 'hot', 'quick', 'mcp', 'ui', 'pg']) {
  const text = readFileSync(`dist/${f}.cjs`, 'latin1');
  const at = text.search(/[^\x00-\x7f]/);
  if (at >= 0)
    throw new Error(
      `build: dist/${f}.cjs has a character past ASCII near ${JSON.stringify(text.slice(at - 40, at + 10))}: write it as a \\u escape in the source`,
    );
}
// The bundles the dispatcher loads run in a vm.Script (src/core/code-cache.ts), which has no dynamic
// import: an import() left in one fails as it runs ("A dynamic import callback was not specified").
for (const f of ['hot', 'quick', 'main', 'mcp', 'ui']) {
  const left = readFileSync(`dist/${f}.cjs`, 'latin1').match(/\bimport\((["'`])[^"'`]*\1\)/);
  if (left) throw new Error(`build: dist/${f}.cjs keeps ${left[0]}: load a built-in with core/builtins.ts' load()`);
}
if (!process.argv.includes('--no-types')) {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
