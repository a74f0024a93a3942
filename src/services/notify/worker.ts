import { readFileSync, rmSync } from 'node:fs';
import { LanesError } from '../../core/errors.js';
import { openStore } from '../../store/open.js';
import { resolveStore, userConfigOnly } from '../config.js';
import { strippedSecrets } from '../../core/redact.js';
import { deliver, deliveryEntries } from './deliver.js';
import type { Delivery } from './deliver.js';
import { NOTIFY_EVENTS_ENV } from './dispatch.js';
import type { NotifyEvent } from './events.js';
import { loadUserNotify } from './user-notify.js';

/**
 * `lanes notify deliver`, started detached by a hook (dispatch.ts): delivers the events in
 * $LANES_NOTIFY_EVENTS to the channels [notify] turns on, then journals what was sent and what
 * failed, in the store the hook used. Bounded: a channel gives up within ~20 s.
 */
export async function deliverNotifications(env: Record<string, string | undefined> = process.env): Promise<Delivery[]> {
  const events = readEvents(env[NOTIFY_EVENTS_ENV]);
  // Hidden again as sent: the user's [env] strip values this process has, and every token shape.
  const strip = (await userConfigOnly(env)).env?.strip ?? [];
  const deliveries = await deliver(events, await loadUserNotify(env), env, strippedSecrets(env, strip));
  const store = await openStore(await resolveStore(undefined, env));
  try {
    await store.appendJournal(deliveryEntries(deliveries));
  } finally {
    await store.close();
  }
  return deliveries;
}

/** `lanes notify test`: one made-up event to every channel on, now, journaling nothing. */
export async function testNotifications(
  env: Record<string, string | undefined> = process.env,
): Promise<{ deliveries: Delivery[]; channels: number }> {
  const config = await loadUserNotify(env);
  const channels = Number(config.desktop) + Number(!!config.webhook);
  const event: NotifyEvent = {
    kind: 'waiting',
    session: 'lanes-test',
    label: 'notify-test',
    agent: 'lanes',
    ticket: null,
    worktree: null,
    host: 'this machine',
    why: 'this is a test of [notify] from `lanes notify test`',
    at: Date.now(),
  };
  return { deliveries: await deliver([event], config, env), channels };
}

/** The events dispatch.ts wrote, read once (the file goes). */
function readEvents(file: string | undefined): NotifyEvent[] {
  try {
    const text = readFileSync(file ?? '', 'utf8');
    rmSync(file!, { force: true });
    const v = JSON.parse(text) as unknown;
    if (Array.isArray(v) && v.every((e) => e && typeof e === 'object' && typeof e.session === 'string'))
      return v as NotifyEvent[];
  } catch {
    // told below
  }
  throw new LanesError('E_USAGE', `lanes notify deliver: ${NOTIFY_EVENTS_ENV} names no file of events`, {
    hint: 'this command is started by lanes itself; to try your [notify] settings run `lanes notify test`',
  });
}
