// Runs every benchmark in turn (npm run bench); each prints its own table. Build first.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

for (const b of ['race', 'gate', 'git', 'runtime', 'ls', 'hook', 'statusline', 'claims']) {
  console.log(`\n## bench/${b}\n`);
  const r = spawnSync(process.execPath, [join(ROOT, 'bench', `${b}.mjs`)], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
