// Bundles the CLI and the library with esbuild. Code splitting keeps `lanes` start-up lean: the
// entry holds only argument dispatch; each command, the store and its native module load on use.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli/bin.ts', index: 'src/index.ts', worker: 'src/cli/demo/worker.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['better-sqlite3', 'cli-table3'],
  sourcemap: 'linked',
  logLevel: 'warning',
});
chmodSync('dist/cli.js', 0o755);
if (!process.argv.includes('--no-types')) {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
