// A webhook taking Slack-compatible JSON (`{"text": …}`: Slack's incoming webhooks, and the
// endpoints of Mattermost, Rocket.Chat, Discord's /slack, ntfy and most chat bridges). Retried a
// few times on a network error, a timeout, 429 or 5xx; any other answer is final.

const TIMEOUT_MS = 5000;
export const WEBHOOK_ATTEMPTS = 3;

export interface WebhookResult {
  ok: boolean;
  attempts: number;
  /** Why it failed, after the last attempt. */
  error: string | null;
}

/** The URL as it may be shown (a webhook's path is its secret: only the origin is). */
export function webhookShown(url: string): string {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return 'the webhook';
  }
}

/**
 * Slack's control characters escaped (its message formatting): an agent's words or a label never
 * become a mention (`<!channel>`) or a disguised link.
 */
export function slackEscaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export async function postWebhook(url: string, text: string, backoffMs: number): Promise<WebhookResult> {
  let error = '';
  for (let attempt = 1; attempt <= WEBHOOK_ATTEMPTS; attempt++) {
    let retry = true;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'lanes' },
        body: JSON.stringify({ text: slackEscaped(text) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        // Never followed (the path is the webhook's secret; a redirect could take it elsewhere), and
        // said as what it is, not as undici's "fetch failed".
        redirect: 'manual',
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return { ok: true, attempts: attempt, error: null };
      if (res.status >= 300 && res.status < 400) {
        const to = res.headers.get('location');
        return {
          ok: false,
          attempts: attempt,
          error: `${webhookShown(url)} answered ${res.status}, a redirect${to ? ` to ${webhookShown(new URL(to, url).toString())}` : ''}: lanes follows no redirect of a webhook (its path is its secret); put the URL it redirects to in [notify] webhook`,
        };
      }
      error = `${webhookShown(url)} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
      retry = res.status === 429 || res.status >= 500;
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      // fetch's own messages may quote the URL: only a code, or the message with the URL cut out.
      error =
        err.name === 'TimeoutError'
          ? `${webhookShown(url)} did not answer within ${TIMEOUT_MS / 1000} s`
          : `${webhookShown(url)}: ${err.cause?.code ?? err.message.split(url).join(webhookShown(url))}`;
    }
    if (!retry) return { ok: false, attempts: attempt, error };
    if (attempt < WEBHOOK_ATTEMPTS) await new Promise((r) => setTimeout(r, backoffMs * 3 ** (attempt - 1)));
  }
  return { ok: false, attempts: WEBHOOK_ATTEMPTS, error };
}
