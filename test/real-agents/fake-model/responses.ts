import type { ServerResponse } from 'node:http';
import { callId, sse } from './server.js';
import type { Protocol, Turn } from './server.js';

/**
 * OpenAI's Responses API as Codex calls it through a custom model provider (`POST
 * {base_url}/responses`, `wire_api = "responses"`), streamed as Server-Sent Events: the events
 * Codex's own test server sends (codex-rs/core/tests/common/responses.rs): response.created, one
 * response.output_item.done per item (function_call with JSON arguments, custom_tool_call with a
 * raw input for a free-form tool such as apply_patch, or an assistant message), response.completed.
 * Quota kinds (FakeModel.quota): a ChatGPT plan's `usage_limit_reached` (default), an API key's
 * `insufficient_quota`, a passing `rate_limit` (tokens per minute).
 */
export const responses: Protocol = {
  isMainLoop(path, body) {
    return path.split('?')[0]!.endsWith('/responses') && Array.isArray(body['tools']);
  },

  answer(res, _body, turn, index) {
    stream(res, turn, `t${index}`, index);
  },

  isModelCall(method, path) {
    return method === 'POST' && path.split('?')[0]!.endsWith('/responses');
  },

  refuse(res, kind, resetsAt) {
    const now = Math.floor(Date.now() / 1000);
    res.writeHead(429, {
      'content-type': 'application/json',
      'x-request-id': 'req_fake_quota',
      // The plan's windows, as the ChatGPT backend reports them on every answer (Codex's rate_limits.rs).
      ...(kind === 'insufficient_quota' || kind === 'rate_limit'
        ? {}
        : {
            'x-codex-primary-used-percent': '100',
            'x-codex-primary-window-minutes': '300',
            'x-codex-primary-reset-at': String(resetsAt),
            'x-codex-secondary-used-percent': '42',
            'x-codex-secondary-window-minutes': '10080',
            'x-codex-secondary-reset-at': String(resetsAt + 6 * 86400),
          }),
    });
    if (kind === 'rate_limit') {
      // A passing rate limit (tokens or requests per minute): the OpenAI API's body, tried again soon.
      res.end(
        JSON.stringify({
          error: {
            message:
              'Rate limit reached for gpt-5.5 in organization org-lanes on tokens per min (TPM): Limit 30000, Used 30000, Requested 100. Please try again in 200ms.',
            type: 'tokens',
            param: null,
            code: 'rate_limit_exceeded',
          },
        }),
      );
      return;
    }
    if (kind === 'insufficient_quota') {
      // An API key's organization out of credit: the OpenAI API's own body.
      res.end(
        JSON.stringify({
          error: {
            message:
              'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
            type: 'insufficient_quota',
            param: null,
            code: 'insufficient_quota',
          },
        }),
      );
      return;
    }
    // A ChatGPT plan's usage limit (the default): what Codex parses into UsageLimitReached.
    res.end(
      JSON.stringify({
        error: {
          type: 'usage_limit_reached',
          message: 'The usage limit has been reached',
          plan_type: 'plus',
          resets_at: resetsAt,
          resets_in_seconds: Math.max(0, resetsAt - now),
        },
      }),
    );
  },

  other(res, method, path, _body, n) {
    if (method === 'POST' && path.split('?')[0]!.endsWith('/responses'))
      return stream(res, { text: 'ok' }, `o${n}`, -1);
    // A model list or any probe: an empty, well-formed answer.
    res.writeHead(method === 'GET' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
  },

  toolResult(body, id) {
    const input = (body as { input?: Record<string, unknown>[] }).input ?? [];
    const item = input.find(
      (i) => (i['type'] === 'function_call_output' || i['type'] === 'custom_tool_call_output') && i['call_id'] === id,
    );
    if (!item) return null;
    const out = item['output'];
    if (typeof out === 'string') return out;
    // Structured output: a list of content items, or an object with content.
    if (Array.isArray(out)) return out.map((c: { text?: string }) => c.text ?? '').join('\n');
    return JSON.stringify(out);
  },
};

function items(turn: Turn, index: number, id: string): Record<string, unknown>[] {
  if ('text' in turn)
    return [
      {
        type: 'message',
        role: 'assistant',
        id: `msg_${id}`,
        content: [{ type: 'output_text', text: turn.text, annotations: [] }],
      },
    ];
  return turn.tools.map((t, i) =>
    typeof t.input === 'string'
      ? { type: 'custom_tool_call', id: `ctc_${id}_${i}`, call_id: callId(index, i), name: t.name, input: t.input }
      : {
          type: 'function_call',
          id: `fc_${id}_${i}`,
          call_id: callId(index, i),
          name: t.name,
          arguments: JSON.stringify(t.input),
        },
  );
}

function stream(res: ServerResponse, turn: Turn, id: string, index: number): void {
  const response = { id: `resp_${id}`, object: 'response', status: 'in_progress', output: [] };
  const usage = {
    input_tokens: 100,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 110,
  };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let seq = 0;
  sse(res, 'response.created', { type: 'response.created', sequence_number: seq++, response });
  const output = items(turn, index, id);
  output.forEach((item, output_index) => {
    sse(res, 'response.output_item.added', {
      type: 'response.output_item.added',
      sequence_number: seq++,
      output_index,
      item,
    });
    sse(res, 'response.output_item.done', {
      type: 'response.output_item.done',
      sequence_number: seq++,
      output_index,
      item,
    });
  });
  sse(res, 'response.completed', {
    type: 'response.completed',
    sequence_number: seq++,
    response: { ...response, status: 'completed', output, usage },
  });
  res.end();
}
