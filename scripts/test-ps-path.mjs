// The CLI and hook suites a second time, on the `ps` path that macOS and the BSDs take, simulated
// on Linux: LANES_PLATFORM=darwin makes every lanes process read process facts with one
// `ps -o pid=,ppid=,stat=,lstart=,command= -p …` per decision (procps' ps stands in for the Mac's),
// LANES_TEST_BOOT_ID stands in for `sysctl -n kern.bootsessionuuid`, and a preload
// (test/helpers/no-proc.cjs) makes every /proc access of every Node process of the run fail and
// records it: the run fails when any lanes (or test) process touched /proc. ps itself may.
//
// Usage: node scripts/test-ps-path.mjs [WORD…]   (default: the files below; build first)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

// Sessions (start, launchers, start -- CMD and its end), claims and takeovers of dead holders with
// their --wait, gated state across processes with its wait notice, Ctrl-C and a SIGKILLed holder,
// the agent hooks end to end, the platform's own cases (one ps per decision, an OS lanes cannot
// judge, /proc hidden). Pid reuse, zombies and reboots on this path: test/core/liveness.test.ts
// (both platforms in every run). Left out to keep CI short (they judge no process, or the same
// code again): handoffs, runtime (ports, env), flags, registry, demo, code cache, hooks install,
// team store, the package install.
const DEFAULT = [
  'test/cli/sessions',
  'test/cli/claims',
  'test/cli/start-end',
  'test/services/state',
  'test/cli/hook-lifecycle',
  'test/cli/hook-edits',
  'test/cli/platform',
];

const words = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'lanes-ps-path-'));
const log = join(dir, 'proc-accesses.log');
const guard = resolve('test/helpers/no-proc.cjs');
const env = {
  ...process.env,
  LANES_PLATFORM: 'darwin',
  // On a Mac the real sysctl answers.
  ...(process.platform === 'darwin' ? {} : { LANES_TEST_BOOT_ID: randomUUID().toUpperCase() }),
  LANES_PROC_GUARD_LOG: log,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${guard}`.trim(),
};
console.log(
  `ps path: LANES_PLATFORM=darwin, boot id ${env.LANES_TEST_BOOT_ID ?? 'from sysctl'}, /proc guarded (${guard})`,
);
const r = spawnSync(process.execPath, ['scripts/run-tests.mjs', ...(words.length ? words : DEFAULT)], {
  stdio: 'inherit',
  env,
});
let touched = '';
try {
  touched = readFileSync(log, 'utf8');
} catch {
  // No access was recorded.
}
rmSync(dir, { recursive: true, force: true });
if (touched) {
  console.error(`\n/proc was touched on the ps path by Node processes of this run:\n${touched}`);
  process.exit(1);
}
console.log('ps path: no Node process of the run touched /proc');
process.exit(r.status ?? 1);
