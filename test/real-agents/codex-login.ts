import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A CODEX_HOME signed in with ChatGPT (a plan's login, what a seat is), as `codex login` leaves it:
 * auth.json holding the OAuth tokens (codex-rs login/src/auth/storage.rs, token_data.rs). Codex
 * reads the id_token's claims (plan, account) without checking a signature and sends the
 * access_token as the bearer with the account in ChatGPT-Account-ID; both are JWTs whose `exp` is
 * a month on and `last_refresh` is now, so Codex never tries to refresh them (auth.openai.com).
 * The access token ends in `lanes-seat-<seat>`: the fake server tells the accounts apart by it.
 */
export const seatToken = (seat: string): string => `lanes-seat-${seat}`;

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function jwt(claims: Record<string, unknown>, signature: string): string {
  return `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.${signature}`;
}

/**
 * `dir` as a seat's CODEX_HOME: the login above, and config.toml with the fake Responses provider
 * (requires_openai_auth: the plan's login is its credential, as for OpenAI's own) and the
 * repository trusted (Codex runs a project's hooks only there).
 */
export function codexSeatHome(dir: string, seat: string, url: string, repo: string): string {
  mkdirSync(dir, { recursive: true });
  const exp = Math.floor(Date.now() / 1000) + 30 * 86_400;
  const account = `acct-${seatToken(seat)}`;
  const auth = {
    chatgpt_plan_type: 'plus',
    chatgpt_user_id: `user-${seatToken(seat)}`,
    chatgpt_account_id: account,
  };
  const tokens = {
    id_token: jwt({ email: `seat-${seat}@lanes.invalid`, 'https://api.openai.com/auth': auth, exp }, 'id'),
    access_token: jwt({ 'https://api.openai.com/auth': auth, exp }, seatToken(seat)),
    refresh_token: `rt-${seatToken(seat)}`,
    account_id: account,
  };
  const login = { OPENAI_API_KEY: null, tokens, last_refresh: new Date().toISOString() };
  writeFileSync(join(dir, 'auth.json'), JSON.stringify(login, null, 2), { mode: 0o600 });
  const config = [
    'model = "gpt-5.5"',
    'model_provider = "lanes_fake"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.lanes_fake]',
    'name = "lanes fake model"',
    `base_url = "${url}/v1"`,
    'wire_api = "responses"',
    'requires_openai_auth = true',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
    `[projects.${JSON.stringify(repo)}]`,
    'trust_level = "trusted"',
    '',
  ];
  writeFileSync(join(dir, 'config.toml'), config.join('\n'));
  return dir;
}
