import type { NotifyConfig } from '../../core/config-notify.js';
import { redacted } from '../../core/redact.js';
import type { Secret } from '../../core/redact.js';
import type { JournalInput } from '../../store/journal-types.js';
import { showDesktop } from './desktop.js';
import { notifyText, notifyTitle } from './events.js';
import type { NotifyEvent } from './events.js';
import { postWebhook } from './webhook.js';

export type NotifyChannel = 'desktop' | 'webhook';

/** More events than this in one delivery go as one message. */
const COALESCE_ABOVE = 3;

export interface Delivery {
  event: NotifyEvent;
  channel: NotifyChannel;
  ok: boolean;
  attempts: number;
  error: string | null;
}

/** Base of the webhook's backoff (1 s, then 3 s); LANES_NOTIFY_BACKOFF_MS shortens it in tests. */
export function backoffFrom(env: Record<string, string | undefined>): number {
  const v = env['LANES_NOTIFY_BACKOFF_MS'];
  return v && /^\d{1,6}$/.test(v) ? Number(v) : 1000;
}

/** Every event to every channel [notify] turns on, channels side by side. */
export async function deliver(
  events: NotifyEvent[],
  config: NotifyConfig,
  env: Record<string, string | undefined>,
  /** Values never to send ([env] strip): each is hidden, as is every token-shaped word. */
  secrets: readonly Secret[] = [],
): Promise<Delivery[]> {
  const out: Delivery[] = [];
  // Many at once (a reboot's deaths): one message for them all, not one per event into a rate limit.
  const many = events.length > COALESCE_ABOVE;
  const batches = many ? [events] : events.map((e) => [e]);
  await Promise.all(
    batches.map(async (batch) => {
      const title = redacted(many ? `lanes: ${batch.length} sessions need a look` : notifyTitle(batch[0]!), secrets);
      const text = redacted(
        many
          ? batch
              .slice(0, 20)
              .map((e) => `• ${notifyText(e, config.agentText)}`)
              .join('\n') + (batch.length > 20 ? `\n… and ${batch.length - 20} more: lanes report` : '')
          : notifyText(batch[0]!, config.agentText),
        secrets,
      );
      const jobs: Promise<void>[] = [];
      if (config.desktop)
        jobs.push(
          showDesktop(title, text, env as NodeJS.ProcessEnv).then((error) => {
            for (const event of batch) out.push({ event, channel: 'desktop', ok: error === null, attempts: 1, error });
          }),
        );
      if (config.webhook)
        jobs.push(
          postWebhook(config.webhook, `*${title}*\n${text}`, backoffFrom(env)).then((r) => {
            for (const event of batch) out.push({ event, channel: 'webhook', ...r });
          }),
        );
      await Promise.all(jobs);
    }),
  );
  return out;
}

/**
 * What the journal keeps of the deliveries: per event, one notify.sent naming the channels that
 * took it, and one notify.fail per channel that failed after its retries (reported once, not per attempt).
 */
export function deliveryEntries(deliveries: Delivery[]): JournalInput[] {
  const byEvent = new Map<NotifyEvent, Delivery[]>();
  for (const d of deliveries) byEvent.set(d.event, [...(byEvent.get(d.event) ?? []), d]);
  const entries: JournalInput[] = [];
  for (const [event, ds] of byEvent) {
    const base = { subject: event.session, session: event.session, ticket: event.ticket };
    const sent = ds.filter((d) => d.ok).map((d) => d.channel);
    if (sent.length > 0)
      entries.push({ ...base, kind: 'notify.sent', details: { event: event.kind, at: event.at, channels: sent } });
    for (const d of ds.filter((x) => !x.ok))
      entries.push({
        ...base,
        kind: 'notify.fail',
        details: { event: event.kind, at: event.at, channel: d.channel, attempts: d.attempts, error: d.error },
      });
  }
  return entries;
}
