import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { isGeminiMainLoop } from './gemini.js';
import { callId, sse } from './server.js';
import type { Protocol, Turn } from './server.js';

/**
 * Google's Code Assist server as Gemini CLI 0.61 calls it when signed in with Google
 * (security.auth.selectedType "oauth-personal"): `POST {CODE_ASSIST_ENDPOINT}/v1internal:{method}`
 * (CodeAssistServer), the credential a bearer (the access token of GEMINI_CLI_HOME/.gemini/
 * oauth_creds.json). loadCodeAssist says which tier and project the login has (here the free tier,
 * "Gemini Code Assist for individuals", already onboarded); streamGenerateContent?alt=sse answers
 * the main loop, each Server-Sent Event `{response: GenerateContentResponse, traceId}`; the request
 * wraps Gemini's as `{model, project, user_prompt_id, request: {contents, tools, …}}`. The rest
 * (listExperiments, retrieveUserQuota, recordCodeAssistMetrics, …) is answered empty.
 *
 * Before any of it, Gemini CLI checks the cached token with Google's tokeninfo endpoint
 * (OAuth2Client.getTokenInfo: `POST https://oauth2.googleapis.com/tokeninfo`, no env var moves it)
 * and, failing that, signs in anew (a browser: fatal under `gemini -p`). So this protocol answers
 * oauth2.googleapis.com and www.googleapis.com itself over TLS, through the CONNECT the agent sends
 * its proxy (this server), with a certificate of this test's making (`googleCertificate`) the
 * agent trusts by NODE_EXTRA_CA_CERTS. Nothing else leaves: other hosts are refused as ever.
 *
 * Quota kinds (FakeModel.quota), both the real service's 429 for a login out of its quota
 * (google.rpc.ErrorInfo reason QUOTA_EXHAUSTED, domain cloudcode-pa.googleapis.com, which Gemini
 * CLI classifies as a TerminalQuotaError with the server's message; RetryInfo the delay):
 * `capacity` (default) "You have exhausted your capacity on this model. Your quota will reset after
 * 2h59m41s." and `individual` "Individual quota reached. Please upgrade your subscription to
 * increase your limits. Resets in 2h59m41s."
 */
export function codeAssist(tls: { key: string; cert: string } | null): Protocol {
  return {
    isMainLoop(path, body) {
      return isGeminiMainLoop(path, (body['request'] as { tools?: unknown } | undefined)?.tools);
    },

    answer(res, _body, turn, index) {
      streamed(res, [wrapped(turn, index)]);
    },

    isModelCall(method, path) {
      return method === 'POST' && /\/v1internal:(stream)?[gG]enerateContent/.test(path);
    },

    refuse(res, kind, resetsAt) {
      json(res, [quotaExhausted(kind, resetsAt)], 429);
    },

    tunnel(host) {
      return tls && GOOGLE_HOSTS.includes(host) ? tls : null;
    },

    other(res, method, path, body, _n) {
      const m = /\/v1internal:(\w+)/.exec(path)?.[1] ?? null;
      if (path.startsWith('/tokeninfo')) return json(res, TOKEN_INFO);
      if (path.startsWith('/oauth2/v2/userinfo'))
        return json(res, { id: '1', email: ACCOUNT, verified_email: true, name: 'Seat A' });
      if (m === 'loadCodeAssist') return json(res, LOAD_CODE_ASSIST);
      if (m === 'onboardUser')
        return json(res, { done: true, response: { cloudaicompanionProject: { id: PROJECT, name: PROJECT } } });
      if (m === 'countTokens') return json(res, { totalTokens: 100 });
      if (m === 'listExperiments') return json(res, { experimentIds: [], flags: [] });
      if (m === 'retrieveUserQuota') return json(res, { buckets: [] });
      if (m === 'generateContent' || m === 'streamGenerateContent') {
        const request = (body['request'] ?? {}) as { generationConfig?: { responseMimeType?: string } };
        // Gemini CLI's structured side questions (next speaker, loop check): the user speaks next.
        const text =
          request.generationConfig?.responseMimeType === 'application/json'
            ? JSON.stringify({ reasoning: 'the turn is complete', next_speaker: 'user' })
            : 'ok';
        const answer = wrapped({ text }, -1);
        return m === 'generateContent' ? json(res, answer) : streamed(res, [answer]);
      }
      // recordCodeAssistMetrics, fetchAdminControls, getCodeAssistGlobalUserSetting, …: accepted.
      json(res, {}, m !== null || method === 'GET' ? 200 : 404);
    },

    toolResult(body, id) {
      const request = (body as { request?: { contents?: { parts?: Record<string, unknown>[] }[] } }).request;
      for (const c of request?.contents ?? [])
        for (const part of c.parts ?? []) {
          const r = part['functionResponse'] as { id?: string; response?: Record<string, unknown> } | undefined;
          if (!r || r.id !== id) continue;
          const out = r.response ?? {};
          if (typeof out['output'] === 'string') return out['output'];
          if (typeof out['error'] === 'string') return out['error'];
          return JSON.stringify(out);
        }
      return null;
    },
  };
}

/** The login's Google account, and the Code Assist project its free tier was given. */
export const ACCOUNT = 'seat-a@example.com';
export const PROJECT = 'lanes-fake-companion-123';
/** Gemini CLI's own OAuth client (the token's audience). */
const CLIENT_ID = '681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com';
const SCOPES = [
  'https://www.googleapis.com/auth/cloud-platform',
  'https://www.googleapis.com/auth/userinfo.email',
  'https://www.googleapis.com/auth/userinfo.profile',
];
const GOOGLE_HOSTS = ['oauth2.googleapis.com:443', 'www.googleapis.com:443'];

const TOKEN_INFO = {
  azp: CLIENT_ID,
  aud: CLIENT_ID,
  sub: '1',
  scope: SCOPES.join(' '),
  exp: String(Math.floor(Date.now() / 1000) + 3599),
  expires_in: 3599,
  email: ACCOUNT,
  email_verified: 'true',
  access_type: 'offline',
};

const FREE_TIER = {
  id: 'free-tier',
  name: 'Gemini Code Assist for individuals',
  description: 'Gemini Code Assist for individuals',
  userDefinedCloudaicompanionProject: false,
  isDefault: true,
};
const LOAD_CODE_ASSIST = {
  currentTier: { ...FREE_TIER, hasOnboardedPreviously: true },
  allowedTiers: [FREE_TIER],
  cloudaicompanionProject: PROJECT,
  gcpManaged: false,
};

/**
 * The files a Google sign-in leaves in GEMINI_CLI_HOME/.gemini (oauth_creds.json: google-auth-
 * library's Credentials; google_accounts.json: the account), with an access token good for a day,
 * so Gemini CLI does not refresh it. `token` is what its requests then carry as a bearer.
 */
export function googleSignIn(token: string): Record<string, string> {
  const creds = {
    access_token: token,
    refresh_token: `1//${token}-refresh`,
    scope: SCOPES.join(' '),
    token_type: 'Bearer',
    id_token: 'eyJhbGciOiJub25lIn0.eyJlbWFpbCI6InNlYXQtYUBleGFtcGxlLmNvbSJ9.',
    expiry_date: Date.now() + 24 * 3600_000,
  };
  return {
    'oauth_creds.json': JSON.stringify(creds, null, 2),
    'google_accounts.json': JSON.stringify({ active: ACCOUNT, old: [] }, null, 2),
  };
}

/**
 * A self-signed certificate for Google's OAuth hosts, made with openssl in `dir`: its files, the
 * PEM (`file`: what NODE_EXTRA_CA_CERTS names) and key. Null without openssl.
 */
export function googleCertificate(dir: string): { key: string; cert: string; file: string } | null {
  const key = join(dir, 'google-test.key');
  const file = join(dir, 'google-test.pem');
  const names = GOOGLE_HOSTS.map((h) => `DNS:${h.split(':')[0]}`).join(',');
  try {
    const args = 'req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=lanes-test-google'.split(' ');
    execFileSync('openssl', [...args, '-keyout', key, '-out', file, '-addext', `subjectAltName=${names}`], {
      stdio: 'pipe',
    });
  } catch {
    return null;
  }
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(file, 'utf8'), file };
}

/**
 * The Code Assist server's 429 for a login out of quota, as it sends it (a JSON array of one
 * error, like its other streamed errors): the message with the wait, ErrorInfo QUOTA_EXHAUSTED with
 * the reset's delay and time, RetryInfo the delay in seconds.
 */
export function quotaExhausted(kind: string | undefined, resetsAt: number): Record<string, unknown> {
  const wait = Math.max(1, resetsAt - Math.floor(Date.now() / 1000));
  const hms = `${Math.floor(wait / 3600)}h${Math.floor((wait % 3600) / 60)}m${wait % 60}s`;
  const message =
    kind === 'individual'
      ? `Individual quota reached. Please upgrade your subscription to increase your limits. Resets in ${hms}.`
      : `You have exhausted your capacity on this model. Your quota will reset after ${hms}.`;
  return {
    error: {
      code: 429,
      message,
      errors: [{ message, domain: 'global', reason: 'rateLimitExceeded' }],
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'QUOTA_EXHAUSTED',
          domain: 'cloudcode-pa.googleapis.com',
          metadata: {
            uiMessage: 'true',
            model: 'gemini-2.5-flash',
            quotaResetDelay: `${hms.replace(/s$/, '')}.25s`,
            quotaResetTimeStamp: new Date(resetsAt * 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${wait}.25s` },
      ],
    },
  };
}

/** A scripted turn as Code Assist answers it: Gemini's response, wrapped. */
function wrapped(turn: Turn, index: number): Record<string, unknown> {
  const parts =
    'text' in turn
      ? [{ text: turn.text }]
      : turn.tools.map((t, i) => ({ functionCall: { id: callId(index, i), name: t.name, args: t.input } }));
  return {
    response: {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
      modelVersion: 'gemini-2.5-flash',
    },
    traceId: `lanes-trace-${index}`,
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
