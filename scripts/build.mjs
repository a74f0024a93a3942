// Bundles the CLI and the library with esbuild, one file per entry. Measured: loading ~50 split
// chunks as ES modules cost more (resolution + compile per file) than parsing one 250 KB file, for
// every command that opens the store (whoami 105 -> 95 ms, exec 120 -> 97 ms; --version 68 -> 77).
// Dynamic imports stay lazy inside the bundle (esbuild wraps them in init functions), and the
// native better-sqlite3 module is still only required when the store is opened.
// LANES_SPLIT=1 builds the split variant for comparison.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli/bin.ts', index: 'src/index.ts', worker: 'src/cli/demo/worker.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: process.env.LANES_SPLIT === '1',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  ...(process.env.LANES_SPLIT === '1' ? { chunkNames: 'chunks/[name]-[hash]' } : {}),
  external: ['better-sqlite3', 'cli-table3'],
  sourcemap: 'linked',
  logLevel: 'warning',
});
chmodSync('dist/cli.js', 0o755);
if (!process.argv.includes('--no-types')) {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
