#!/usr/bin/env node
// The lanes binary: a dispatcher of a few lines. The hot commands (run inside every agent tool
// call) load dist/hot.cjs, everything else dist/main.cjs; each is one pre-bundled file.
import { createRequire } from 'node:module';

type Entry = { main(argv: string[]): Promise<number> };

const argv = process.argv.slice(2);
const load = createRequire(import.meta.url);
const hot = argv[0] === 'hook' || argv[0] === 'exec';
const entry = (hot ? load('./hot.cjs') : load('./main.cjs')) as Entry;

entry.main(argv).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`lanes: internal error: ${String(e)}\n`);
    process.exitCode = 1;
  },
);
