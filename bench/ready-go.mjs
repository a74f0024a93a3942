// The worker side of bench/lib.mjs's runWorkers: say "ready", then wait for the "go" line, so that
// every worker starts its timed loop together.
import { createInterface } from 'node:readline';

export async function readyThenGo() {
  process.stdout.write('ready\n');
  const rl = createInterface({ input: process.stdin });
  await new Promise((res) => rl.once('line', res));
  rl.close();
  process.stdin.destroy();
}
