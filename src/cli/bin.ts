#!/usr/bin/env node
// The lanes binary: a dispatcher of a few lines. The hot commands (run inside every agent tool
// call; `hot` in registry.ts) load dist/hot.cjs, everything else dist/main.cjs; each is one
// pre-bundled file, loaded with V8's code cache (core/code-cache.ts).
import { join } from 'node:path';
import { loadBundle } from '../core/code-cache.js';
import { exitWhenSettled, watchStdio } from './quick-exit.js';
import { supportedNode, unsupportedNodeText } from '../core/node-version.js';

// The names registry.ts marks hot, written in by the build (scripts/build.mjs): the dispatcher is
// compiled on every start, so it does not carry the registry itself.
declare const __LANES_HOT_COMMANDS__: readonly string[];
declare const __LANES_QUICK_COMMANDS__: readonly string[];

type Entry = { main(argv: string[]): Promise<number> };

const argv = process.argv.slice(2);
// Before anything is loaded: an older Node.js gets one line saying which it is and what to run
// lanes on, not a stack from a missing node:sqlite.
if (!supportedNode()) {
  process.stderr.write(`lanes: ${unsupportedNodeText()}`);
  process.exit(1);
}
// This file is only ever built as CommonJS (dist/cli.cjs, as its `require` below shows): its
// directory without a file URL's round trip (~0.1-0.4 ms a start).
const here = __dirname;
// Claude Code's WorktreeCreate/WorktreeRemove and SubagentStop make and remove worktrees (a few per
// session, never per tool call): the full bundle, so the hot one carries no worktree code.
const worktreeHook = argv[0] === 'hook' && /^(worktree-create|worktree-remove|subagent-stop)$/.test(argv[2] ?? '');
const hot = argv[0] !== undefined && __LANES_HOT_COMMANDS__.includes(argv[0]) && !worktreeHook;
const quick = argv[0] !== undefined && __LANES_QUICK_COMMANDS__.includes(argv[0]);
if (hot) watchStdio();
// A hot command's cache is its own, per hook event (core/code-cache.ts): each holds only what it runs.
const profile = hot ? (argv[0] === 'hook' ? `hook.${argv[2] ?? ''}` : (argv[0] ?? '')) : '';
// The bundles sit beside this file: its own require resolves for them as theirs would (and
// node:module's createRequire, loaded for it, cost each hook call ~1 M instructions).
const bundle = hot ? 'hot.cjs' : quick ? 'quick.cjs' : 'main.cjs';
const entry = loadBundle(join(here, bundle), require, { profile, ascii: hot }) as Entry;

entry.main(argv).then(
  (code) => {
    if (hot) exitWhenSettled(code);
    else process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`lanes: internal error: ${String(e)}\n`);
    process.exitCode = 1;
  },
);
