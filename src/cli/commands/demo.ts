import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { pc, printJson } from '../output.js';
import { killRunning } from '../demo/child.js';
import { claimsAndFencing, gatedState, handoffCrossTalk } from '../demo/scenarios.js';
import type { Check, World } from '../demo/scenarios.js';
import { indexSweep, staleSaveSweep } from '../demo/git-scenarios.js';

// The README's four incidents (handoff cross-talk, the index sweep, the unsafe clear, the stale
// save sweep), each reproduced without lanes beside the protection, and the claims between them.
const STEPS = [
  { title: 'handoff cross-talk', run: handoffCrossTalk },
  { title: 'git index sweep', run: indexSweep },
  { title: 'claims with fencing tokens', run: claimsAndFencing },
  { title: 'unsafe clear', run: gatedState },
  { title: 'stale save sweep', run: staleSaveSweep },
];

export const command: CommandSpec = {
  name: 'demo',
  summary: 'Show each protection working, next to the failure it prevents, in a temporary repository and store.',
  usage: 'demo [--keep] [--json]',
  description:
    'Runs real processes against a temporary git repository and SQLite store (your own store is not touched).\nExit 0 when every protection held, 1 otherwise.',
  options: { keep: { type: 'boolean', help: 'keep the temporary directory and print its path' } },
  maxPositionals: 0,
  async run(args, io) {
    const dir = mkdtempSync(join(tmpdir(), 'lanes-demo-'));
    const home = join(dir, 'home');
    const repo = join(dir, 'shop');
    mkdirSync(join(repo, 'src', 'billing'), { recursive: true });
    const git = (...a: string[]) => execFileSync('git', a, { cwd: repo, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    // The repository's own identity: a fresh machine (a new container, CI, an empty HOME) has none,
    // and every commit of the demo (lanes commit's included) reads it from here.
    git('config', 'user.name', 'demo');
    git('config', 'user.email', 'demo@lanes.invalid');
    git('config', 'commit.gpgsign', 'false');
    writeFileSync(join(repo, 'src', 'billing', 'invoice.ts'), 'export const total = 0;\n');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    const env: NodeJS.ProcessEnv = { ...process.env, LANES_HOME: home, LANES_STORE: join(home, 'lanes.db') };
    delete env['LANES_SESSION'];
    delete env['XDG_RUNTIME_DIR'];
    const { openLanes } = await import('../../index.js');
    const lanes = await openLanes({ store: join(home, 'lanes.db'), env, cwd: repo, session: null, notice: false });
    const say = io.json ? () => undefined : (line: string) => io.stdout(line + '\n');
    const world: World = { lanes, env, dir, repo, say };
    say(pc.bold(`lanes demo: a temporary repository ${repo} and store ${join(home, 'lanes.db')}`));
    say('');
    const checks: Check[] = [];
    try {
      for (const [i, step] of STEPS.entries()) {
        try {
          checks.push(...(await step.run(world)));
        } catch (e) {
          // A step that could not run is a failed check with its reason, never a silent success.
          const why = e instanceof Error ? e.message : String(e);
          checks.push({ name: `step ${i + 1} (${step.title}) ran to the end`, ok: false, detail: why });
          say(pc.red(`   step ${i + 1} (${step.title}) failed: ${why.split('\n')[0]}`));
        } finally {
          await killRunning();
        }
        say('');
      }
    } finally {
      await lanes.close();
      if (!args.values['keep']) rmSync(dir, { recursive: true, force: true });
    }
    const failed = checks.filter((c) => !c.ok);
    if (io.json) printJson(io.stdout, { ok: failed.length === 0, checks, dir: args.values['keep'] ? dir : null });
    else {
      for (const c of checks)
        say(`${c.ok ? pc.green('✔') : pc.red('✘')} ${c.name}${c.ok ? '' : `: ${c.detail.split('\n')[0]}`}`);
      say('');
      say(
        failed.length === 0
          ? pc.green(`all ${checks.length} checks held`)
          : pc.red(`${failed.length} of ${checks.length} checks FAILED`),
      );
      if (args.values['keep']) say(`kept ${dir}`);
    }
    // The whole reason (a worker's stderr can run to several lines) goes to stderr, in --json mode too.
    for (const c of failed) io.stderr(`lanes demo: FAILED: ${c.name}: ${c.detail}\n`);
    return failed.length === 0 ? EXIT.ok : EXIT.error;
  },
};
