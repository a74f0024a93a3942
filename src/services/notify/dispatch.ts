import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lanesHome } from '../../core/paths.js';
import type { LanesContext } from '../context.js';
import { loadUserNotify } from './user-notify.js';
import type { NotifyEvent } from './events.js';
import { makeDirsSync } from '../../core/make-dirs.js';

/**
 * The environment variable naming the file that hands the events to `lanes notify deliver` (a
 * file, not the environment: a reboot's hundreds of deaths would pass the kernel's limit).
 */
export const NOTIFY_EVENTS_ENV = 'LANES_NOTIFY_EVENTS_FILE';

/**
 * Hands the events the user's [notify] asks for to a detached `lanes notify deliver`: a hook
 * never waits for a notification (the desktop's daemon, a webhook's retries), and the process
 * lives on after the hook exits. Nothing is started when no channel is on or no event is wanted.
 * Never throws: a notification that cannot start is not the agent's problem (the journal says so).
 */
export async function notifyLater(ctx: LanesContext, events: NotifyEvent[]): Promise<void> {
  if (events.length === 0) return;
  try {
    const config = await loadUserNotify(ctx.env);
    const wanted = events.filter((e) => config.events.includes(e.kind));
    if (wanted.length === 0 || (!config.desktop && !config.webhook)) return;
    // The binary beside this bundle (dist/cli.cjs next to dist/hot.cjs, main.cjs or index.js).
    const cli = fileURLToPath(new URL('./cli.cjs', import.meta.url));
    if (!existsSync(cli)) throw new Error(`${cli} is missing`);
    const dir = join(lanesHome(ctx.env), 'notify');
    makeDirsSync(dir, 0o700);
    const file = join(dir, `${process.pid}-${randomBytes(6).toString('hex')}.json`);
    writeFileSync(file, JSON.stringify(wanted), { mode: 0o600, flag: 'wx' });
    const child = spawn(process.execPath, [cli, 'notify', 'deliver'], {
      detached: true,
      stdio: 'ignore',
      env: { ...ctx.env, LANES_STORE: ctx.location, [NOTIFY_EVENTS_ENV]: file },
    });
    child.on('error', () => undefined);
    child.unref();
  } catch (e) {
    await ctx.journal
      .record({
        kind: 'notify.fail',
        subject: events[0]!.session,
        session: events[0]!.session,
        details: { events: events.map((x) => x.kind), error: `could not start the delivery: ${(e as Error).message}` },
      })
      .catch(() => undefined);
  }
}
