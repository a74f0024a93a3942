import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lanesHome } from '../../core/paths.js';
import type { LanesContext } from '../context.js';
import { loadUserNotify } from './user-notify.js';
import { loadConfig } from '../config.js';
import { redacted, strippedSecrets } from '../../core/redact.js';
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
    const chosen = events.filter((e) => config.events.includes(e.kind));
    if (chosen.length === 0 || (!config.desktop && !config.webhook)) return;
    // Redacted before it reaches the disk (the file below) or leaves the machine; without the
    // agent's words at all when [notify] agent_text = false.
    const secrets = strippedSecrets(ctx.env, await stripOf(ctx, chosen));
    const wanted = chosen.map((e) => ({
      ...e,
      label: e.label === null ? null : redacted(e.label, secrets),
      why: e.why === null || !config.agentText ? null : redacted(e.why, secrets),
    }));
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

/** The strip lists of the user config and of each event's worktree (as the page gathers them). */
async function stripOf(ctx: LanesContext, events: NotifyEvent[]): Promise<string[]> {
  const lists = await Promise.all(
    [...new Set(events.map((e) => e.worktree))].map((w) =>
      loadConfig(ctx, w).then(
        (c) => c.env.strip,
        () => [] as string[],
      ),
    ),
  );
  return [...new Set(lists.flat())];
}
