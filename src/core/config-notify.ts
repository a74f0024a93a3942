import { fail } from './config-fail.js';
import type { ConfigSource } from './config-fail.js';

/** What a person is told of (services/notify). died comes from liveness, the others from the agents' hooks. */
export const NOTIFY_EVENTS = ['waiting', 'finished', 'denied', 'died', 'exhausted', 'budget'] as const;
export type NotifyEventKind = (typeof NOTIFY_EVENTS)[number];

/** `[notify]` of the user config. */
export interface NotifyConfig {
  /** notify-send on Linux, osascript on macOS. */
  desktop: boolean;
  /** An http(s) URL that takes Slack-compatible JSON (`{"text": …}`), or null. */
  webhook: string | null;
  events: NotifyEventKind[];
  /**
   * Whether a notification carries the agent's own words (its prompt, its error; redacted either
   * way). false: the event, the session and the command only.
   */
  agentText: boolean;
}

const DEFAULT_EVENTS: NotifyEventKind[] = ['waiting', 'denied', 'died', 'exhausted', 'budget'];

/** [notify] when the user config says nothing: nobody is told (no channel), of these events once one is set. */
export const DEFAULT_NOTIFY: NotifyConfig = { desktop: false, webhook: null, events: DEFAULT_EVENTS, agentText: true };

/** `[notify] desktop = true`, `webhook = "https://…"`, `events = ["waiting", "died"]`. */
export function validateNotify(src: ConfigSource, t: Record<string, unknown>): NotifyConfig {
  const out: NotifyConfig = { desktop: false, webhook: null, events: DEFAULT_EVENTS, agentText: true };
  for (const [k, v] of Object.entries(t)) {
    if (k === 'desktop') {
      if (typeof v !== 'boolean') fail(src, 'notify', k, 'true or false', v);
      out.desktop = v as boolean;
    } else if (k === 'webhook') {
      // The value is never echoed: a webhook's path is its secret (and errors reach the journal).
      if (typeof v !== 'string' || !isHttpUrl(v))
        fail(
          src,
          'notify',
          k,
          'an http:// or https:// URL without a user or password (a Slack-compatible incoming webhook)',
        );
      out.webhook = v as string;
    } else if (k === 'events') {
      const known = NOTIFY_EVENTS as readonly unknown[];
      if (!Array.isArray(v) || !v.every((e) => known.includes(e)))
        fail(src, 'notify', k, `a list of events among ${NOTIFY_EVENTS.map((e) => `"${e}"`).join(', ')}`, v);
      out.events = [...new Set(v as NotifyEventKind[])];
    } else if (k === 'agent_text') {
      if (typeof v !== 'boolean') fail(src, 'notify', k, 'true or false', v);
      out.agentText = v as boolean;
    } else fail(src, 'notify', k, 'desktop, webhook, events or agent_text (unknown key)');
  }
  return out;
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !u.username && !u.password;
  } catch {
    return false;
  }
}
