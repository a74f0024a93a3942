import type { ServerResponse } from 'node:http';
import { callId, sse } from './server.js';
import type { Protocol, Turn } from './server.js';

/**
 * Anthropic's Messages API as Claude Code calls it (`POST $ANTHROPIC_BASE_URL/v1/messages`,
 * streamed as Server-Sent Events: message_start, content_block_start/delta/stop per block,
 * message_delta with the stop reason, message_stop). The main loop is a request offering tools;
 * side requests (a title, a summary) offer none and get a short text. Quota kinds (FakeModel.quota):
 * the subscription's 5-hour limit (default) or `weekly` one, an API key's per-minute `throttle`,
 * its prepaid `credit` run out.
 */
export const anthropic: Protocol = {
  isMainLoop(path, body) {
    return (
      path.startsWith('/v1/messages') &&
      !path.includes('count_tokens') &&
      Array.isArray(body['tools']) &&
      body['tools'].length > 0
    );
  },

  answer(res, body, turn, index) {
    reply(res, body, turn, `t${index}`, index);
  },

  toolResult(body, id) {
    const messages = (body as { messages?: { content?: unknown }[] }).messages ?? [];
    for (const m of messages) {
      if (!Array.isArray(m.content)) continue;
      for (const block of m.content as Record<string, unknown>[]) {
        if (block['type'] !== 'tool_result' || block['tool_use_id'] !== id) continue;
        const c = block['content'];
        // A tool result's content is a string or a list of blocks (text among them).
        if (typeof c === 'string') return c;
        return Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? '').join('\n') : '';
      }
    }
    return null;
  },

  isModelCall(method, path) {
    return method === 'POST' && path.startsWith('/v1/messages') && !path.includes('count_tokens');
  },

  refuse(res, kind, resetsAt) {
    const wait = String(Math.max(1, resetsAt - Math.floor(Date.now() / 1000)));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': 'req_fake_quota' };
    if (kind === 'credit') {
      // An API key's prepaid credits ran out: a 400, which Claude Code calls billing_error.
      res.writeHead(400, headers).end(error('invalid_request_error', CREDIT_TOO_LOW));
      return;
    }
    if (kind === 'throttle') {
      // The per-minute rate limit of an API key's organization: transient, retried by the SDK.
      res
        .writeHead(429, { ...headers, 'retry-after': wait, 'anthropic-ratelimit-requests-limit': '50' })
        .end(error('rate_limit_error', THROTTLED));
      return;
    }
    // The claude.ai subscription's usage limit (the default): the unified rate-limit headers Claude
    // Code reads (status rejected, the reset in Unix seconds, the window that ran out).
    res.writeHead(429, {
      ...headers,
      'retry-after': wait,
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(resetsAt),
      'anthropic-ratelimit-unified-representative-claim': kind === 'weekly' ? 'seven_day' : 'five_hour',
      ...(kind === 'weekly'
        ? { 'anthropic-ratelimit-unified-7d-status': 'rejected', 'anthropic-ratelimit-unified-7d-utilization': '1.0' }
        : { 'anthropic-ratelimit-unified-5h-status': 'rejected', 'anthropic-ratelimit-unified-5h-utilization': '1.0' }),
      [`anthropic-ratelimit-unified-${kind === 'weekly' ? '7d' : '5h'}-reset`]: String(resetsAt),
    });
    res.end(error('rate_limit_error', ACCOUNT_LIMIT));
  },

  other(res, method, path, body, n) {
    if (method === 'POST' && path.startsWith('/v1/messages/count_tokens')) return json(res, { input_tokens: 100 });
    if (method === 'POST' && path.startsWith('/v1/messages')) return reply(res, body, { text: 'ok' }, `o${n}`, -1);
    json(res, {}, method === 'HEAD' || method === 'GET' ? 200 : 404);
  },
};

// The API's own words for each limit.
const ACCOUNT_LIMIT = "This request would exceed your account's rate limit. Please try again later.";
const THROTTLED =
  'This request would exceed the rate limit for your organization of 50 requests per minute. Please try again later.';
const CREDIT_TOO_LOW =
  'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.';

function error(type: string, message: string): string {
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_fake_quota' });
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

function blocks(turn: Turn, index: number): Block[] {
  if ('text' in turn) return [{ type: 'text', text: turn.text }];
  return turn.tools.map((t, i) => ({ type: 'tool_use', id: callId(index, i), name: t.name, input: t.input }));
}

function reply(res: ServerResponse, body: Record<string, unknown>, turn: Turn, id: string, index: number): void {
  const content = blocks(turn, index);
  const stopReason = 'tools' in turn ? 'tool_use' : 'end_turn';
  const model = typeof body['model'] === 'string' ? body['model'] : 'claude-fake';
  const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: `msg_fake_${id}`, type: 'message', role: 'assistant', model, stop_sequence: null };
  if (body['stream'] !== true) return json(res, { ...message, content, stop_reason: stopReason, usage });

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  sse(res, 'message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 10 },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function json(res: ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}
