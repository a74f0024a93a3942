// bench/race: the handoff cross-talk incident reproduced with real processes.
// N sessions x M write-then-read handoffs in three modes:
//   plain     one shared fixed path, plain JSON (the incident): counts silent reads of another session's data
//   envelope  the shared path through lanes' envelope: every wrong-owner read must be REPORTED (silent: 0)
//   lanes     lanes' per-session handoffs: wrong-owner reads must be 0
// Usage: node bench/race.mjs [--sessions 2,8,16] [--rounds 200,10000]
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { ROOT, runWorkers, scratch, table } from './lib.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return (i > 0 ? process.argv[i + 1] : dflt).split(',').map(Number);
};
const SESSIONS = arg('--sessions', '2,8,16');
const ROUNDS = arg('--rounds', '200,10000');
const worker = join(ROOT, 'dist', 'worker.js');

const rows = [];
let violations = 0;
for (const m of ROUNDS) {
  for (const n of SESSIONS) {
    for (const mode of ['plain', 'envelope', 'lanes']) {
      const dir = scratch('lanes-race-');
      const env = { ...process.env, LANES_HOME: join(dir, 'home'), XDG_RUNTIME_DIR: join(dir, 'run') };
      delete env.LANES_SESSION;
      delete env.LANES_STORE;
      const t0 = performance.now();
      const tallies = await runWorkers(
        Array.from({ length: n }, () => [process.execPath, [worker, 'race', mode, dir, String(m)]]),
        env,
      );
      const secs = (performance.now() - t0) / 1000;
      rmSync(dir, { recursive: true, force: true });
      const sum = (k) => tallies.reduce((s, t) => s + t[k], 0);
      const total = sum('handoffs');
      const silent = sum('silentWrong');
      const torn = sum('torn');
      const reported = sum('reported');
      if (mode !== 'plain' && (silent > 0 || torn > 0)) violations++;
      if (mode === 'lanes' && reported > 0) violations++;
      rows.push([
        n,
        m,
        mode,
        total,
        silent,
        `${((100 * silent) / total).toFixed(1)}%`,
        torn,
        reported,
        `${((100 * reported) / total).toFixed(1)}%`,
        secs.toFixed(1),
      ]);
      process.stderr.write(
        `  ${mode} n=${n} m=${m}: ${silent} silent, ${torn} torn, ${reported} reported (${secs.toFixed(1)} s)\n`,
      );
    }
  }
}
console.log(
  table(
    [
      'sessions',
      'handoffs each',
      'mode',
      'reads',
      'silent wrong',
      'silent %',
      'torn',
      'reported',
      'reported %',
      'seconds',
    ],
    rows,
  ),
);
console.log(
  violations === 0
    ? '\nOK: lanes modes had 0 silent wrong-owner reads; per-session handoffs had 0 wrong-owner reads.'
    : `\nFAIL: ${violations} runs broke the lanes invariants`,
);
process.exitCode = violations === 0 ? 0 : 1;
