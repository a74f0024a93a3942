import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';

// Liveness fails closed on the `ps` path (macOS, the BSDs; simulated here with LANES_PLATFORM=darwin
// and procps' ps behind a stand-in on PATH). A ps that ran and listed is the answer, whatever its
// exit status (the Mac's ps exits 1 when some of the pids are gone); a ps that failed, or was
// denied, proves nothing: the owners are unknown, never dead, and nothing of them is taken over.
// Before, an exit 1 with output failed the whole decision, and a denied ps made `lanes ls` fail.

const realPs = execFileSync('sh', ['-c', 'command -v ps'], { encoding: 'utf8' }).trim();

function fakePs(): { dir: string; mode: (m: 'real' | 'partial' | 'denied' | 'broken') => void } {
  const dir = tmp('lanes-fake-ps-');
  const modeFile = join(dir, 'mode');
  writeFileSync(modeFile, 'real');
  // `-A` (the lineage walk) always answers; `-p LIST` as the mode says.
  writeFileSync(
    join(dir, 'ps'),
    `#!/bin/sh
mode=$(cat '${modeFile}')
case " $* " in *" -A "*) exec '${realPs}' "$@" ;; esac
case "$mode" in
  partial) '${realPs}' "$@"; exit 1 ;;
  denied) echo "ps: Operation not permitted" >&2; exit 1 ;;
  broken) echo "ps: cannot allocate memory" >&2; exit 2 ;;
  *) exec '${realPs}' "$@" ;;
esac
`,
  );
  chmodSync(join(dir, 'ps'), 0o755);
  return { dir, mode: (m) => writeFileSync(modeFile, m) };
}

test('ps on the ps path: survivors from its output whatever its exit; a failed or denied ps makes owners unknown, never dead', async () => {
  const repo = gitRepo();
  const ps = fakePs();
  const env = {
    ...lanesEnv(),
    LANES_PLATFORM: 'darwin',
    LANES_TEST_BOOT_ID: 'sim-boot',
    PATH: `${ps.dir}:${process.env['PATH']}`,
  };
  const owned = async (label: string) => {
    const o = node('sleeper.mjs', [], { env });
    const [, pid] = (await o.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    const r = await lanes(['start', '--pid', pid!, '--label', label], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr);
    return { id: r.stdout.trim(), owner: o };
  };
  const as = (id: string) => ({ env: { ...env, LANES_SESSION: id }, cwd: repo });
  const holder = await owned('holder');
  const doomed = await owned('doomed');
  const me = await owned('claimant');
  assert.equal((await lanes(['claim', 'path:x/'], as(holder.id))).code, 0);
  assert.equal((await lanes(['claim', 'path:y/'], as(doomed.id))).code, 0);
  doomed.owner.proc.kill('SIGKILL');
  await doomed.owner.exited;

  // ps exits 1 with what it found: the holder is listed (live), the doomed one is not (dead).
  ps.mode('partial');
  const took = await lanes(['claim', 'path:y/'], as(me.id));
  assert.equal(took.code, 0, took.stderr);
  assert.match(took.stdout, /took over path:y\//);
  const held = await lanes(['claim', 'path:x/a.ts'], as(me.id));
  assert.equal(held.code, 3, held.stderr);

  // ps denied, or failing: unknown. The claim is refused with a code of its own, nothing taken over.
  for (const mode of ['denied', 'broken'] as const) {
    ps.mode(mode);
    holder.owner.proc.kill('SIGKILL'); // even a holder that is really gone: lanes cannot tell
    await holder.owner.exited;
    const r = await lanes(['claim', 'path:x/b.ts', '--json'], as(me.id));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const err = JSON.parse(r.stdout).error;
    assert.equal(err.code, 'E_LIVENESS_UNKNOWN');
    assert.match(
      err.message,
      new RegExp(`path:x/ is held by session ${holder.id} \\(holder\\), and lanes cannot tell`),
    );
    assert.match(err.message, /cannot read process facts/);
    const ls = await lanes(['ls'], { env, cwd: repo });
    assert.equal(ls.code, 0, ls.stderr);
    assert.match(ls.stdout, new RegExp(`${holder.id} +unknown`));
  }
  ps.mode('real');
  const claims = JSON.parse((await lanes(['claims', '--json'], { env, cwd: repo })).stdout) as {
    claim: { name: string; sessionId: string };
  }[];
  assert.ok(
    claims.some((c) => c.claim.name === 'x/' && c.claim.sessionId === holder.id),
    'the holder kept its claim',
  );
  // With ps answering again, the dead holder is proven dead and its claim can be taken over.
  assert.equal((await lanes(['claim', 'path:x/'], as(me.id))).code, 0);
  me.owner.proc.stdin.end();
});
