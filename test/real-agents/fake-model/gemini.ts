import type { ServerResponse } from 'node:http';
import { callId, sse } from './server.js';
import type { Protocol, Turn } from './server.js';

/**
 * The Gemini API as Gemini CLI calls it with GOOGLE_GEMINI_BASE_URL and an API key (the
 * @google/genai client): `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`,
 * each Server-Sent Event one GenerateContentResponse; `:generateContent` answers in one JSON;
 * `:countTokens` counts. The main loop is a request declaring functions; side requests (Gemini
 * CLI's JSON checks such as who speaks next) get a short answer that ends the turn. Quota kinds
 * (FakeModel.quota): the free tier's requests per day (default, which Gemini CLI takes as
 * terminal) or `per_minute` (retried).
 */
export const gemini: Protocol = {
  isMainLoop(path, body) {
    return isGeminiMainLoop(path, body['tools']);
  },

  answer(res, _body, turn, index) {
    streamed(res, [response(turn, index)]);
  },

  isModelCall(method, path) {
    return method === 'POST' && /:(stream)?[gG]enerateContent/.test(path);
  },

  refuse(res, kind, resetsAt) {
    // google.rpc details as the Gemini API sends them: which quota ran out, and when to retry.
    const wait = Math.max(1, resetsAt - Math.floor(Date.now() / 1000));
    const perDay = kind !== 'per_minute';
    const quotaId = perDay
      ? 'GenerateRequestsPerDayPerProjectPerModel-FreeTier'
      : 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier';
    const metric = 'generativelanguage.googleapis.com/generate_content_free_tier_requests';
    const limit = perDay ? 250 : 10;
    json(
      res,
      {
        error: {
          code: 429,
          message: `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: ${metric}, limit: ${limit}, model: gemini-2.5-flash\nPlease retry in ${wait}s.`,
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
              violations: [
                {
                  quotaMetric: metric,
                  quotaId,
                  quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
                  quotaValue: String(limit),
                },
              ],
            },
            {
              '@type': 'type.googleapis.com/google.rpc.Help',
              links: [
                {
                  description: 'Learn more about Gemini API quotas',
                  url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
                },
              ],
            },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${wait}s` },
          ],
        },
      },
      429,
    );
  },

  other(res, method, path, body, _n) {
    if (path.includes(':countTokens')) return json(res, { totalTokens: 100 });
    const config = (body['generationConfig'] ?? {}) as { responseMimeType?: string };
    // Gemini CLI's structured side questions (next speaker, loop check): the user speaks next.
    const text =
      config.responseMimeType === 'application/json'
        ? JSON.stringify({ reasoning: 'the turn is complete', next_speaker: 'user' })
        : 'ok';
    const answer = response({ text }, -1);
    if (path.includes(':streamGenerateContent')) return streamed(res, [answer]);
    if (path.includes(':generateContent')) return json(res, answer);
    json(res, {}, method === 'GET' ? 200 : 404);
  },

  toolResult(body, id) {
    const contents = (body as { contents?: { parts?: Record<string, unknown>[] }[] }).contents ?? [];
    for (const c of contents)
      for (const part of c.parts ?? []) {
        const r = part['functionResponse'] as { id?: string; response?: Record<string, unknown> } | undefined;
        if (!r || r.id !== id) continue;
        const out = r.response ?? {};
        // Gemini CLI sends a tool's result as {output} and its failure as {error}.
        if (typeof out['output'] === 'string') return out['output'];
        if (typeof out['error'] === 'string') return out['error'];
        return JSON.stringify(out);
      }
    return null;
  },
};

export function response(turn: Turn, index: number): Record<string, unknown> {
  const parts =
    'text' in turn
      ? [{ text: turn.text }]
      : turn.tools.map((t, i) => ({ functionCall: { id: callId(index, i), name: t.name, args: t.input } }));
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
    modelVersion: 'gemini-fake',
  };
}

function streamed(res: ServerResponse, chunks: unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const c of chunks) sse(res, null, c);
  res.end();
}

function json(res: ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** Gemini CLI's main loop: a streamed request that declares its functions (side questions declare none). */
export function isGeminiMainLoop(path: string, tools: unknown): boolean {
  return (
    path.includes(':streamGenerateContent') &&
    Array.isArray(tools) &&
    tools.some((t: { functionDeclarations?: unknown[] }) => (t.functionDeclarations ?? []).length > 0)
  );
}
