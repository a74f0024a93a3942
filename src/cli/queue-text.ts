import { EXIT, isLanesError } from '../core/errors.js';
import type { Lanes, PushResult, RemoteLease } from '../index.js';
import type { Io } from './command.js';
import { printJson } from './output.js';

/** `lanes land --queue`: the run, a line per session; exit 3 when the queue stopped any. */
export async function landQueue(
  lanes: Lanes,
  into: string | undefined,
  io: Io,
  lease: RemoteLease | null = null,
): Promise<number> {
  const run = await lanes.queue.run(into ? { into } : {});
  const stopped = run.results.filter((r) => r.outcome === 'stopped').length;
  // Pushed once, after the whole run: only if something landed, leasing the tip read before it began.
  const landedAny = run.results.some((r) => r.outcome === 'landed');
  if (io.json) {
    // A refused push is said beside the run: what landed here stays known to the script.
    let push: unknown = null;
    if (lease && landedAny)
      push = await lanes.queue.push(lease).catch((e: unknown) => {
        if (!isLanesError(e)) throw e;
        return { error: e.toJSON()['error'] };
      });
    printJson(io.stdout, push ? { ...run, push } : run);
    const refused = push !== null && typeof push === 'object' && 'error' in push;
    return stopped > 0 || refused ? EXIT.held : EXIT.ok;
  }
  if (run.recovered.length > 0) io.stdout(`undid what an interrupted run left: ${run.recovered.join('; ')}\n`);
  if (run.results.length === 0) io.stdout(`no session is ready to land into ${run.target} (lanes ready marks one)\n`);
  for (const r of run.results) {
    const who = `${r.session}${r.ticket ? ` (${r.ticket})` : ''}`;
    if (r.outcome === 'already') io.stdout(`left ${who} out: ${r.why}\n`);
    else if (r.outcome === 'landed')
      io.stdout(
        `landed ${who}: ${r.landed.branch.replace('refs/heads/', '')} on ${run.target} ${r.landed.from.slice(0, 10)} -> ${r.landed.to.slice(0, 10)}\n`,
      );
    else {
      const [first, ...rest] = r.why.split('\n');
      io.stdout(`stopped ${who}: ${r.reason}: ${first}\n${rest.map((l) => `    ${l}\n`).join('')}`);
    }
  }
  const landed = run.results.filter((r) => r.outcome === 'landed').length;
  if (run.results.length > 0)
    io.stdout(
      `${landed} landed, ${stopped} stopped${stopped ? ' (lanes queue shows why; lanes ready marks one again once fixed)' : ''}\n`,
    );
  if (lease && landedAny) io.stdout(pushedText(await lanes.queue.push(lease)));
  return stopped > 0 ? EXIT.held : EXIT.ok;
}

export function pushedText(p: PushResult): string {
  return `pushed ${p.target} to ${p.remote}: ${p.from?.slice(0, 10) ?? '(new)'} -> ${p.to.slice(0, 10)} (the remote was where lanes read it)\n`;
}
