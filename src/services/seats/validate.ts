import { isAbsolute, join } from 'node:path';
import { AGENT_LOGINS, SECRET_NAME } from '../../core/agent-logins.js';
import { homeDir } from '../../core/builtins.js';
import { LanesError } from '../../core/errors.js';
import { AGENTS } from '../../core/hook-event.js';
import type { AgentName } from '../../core/hook-event.js';

// What `lanes seat add` accepts. A seat names a login by what selects it (a config directory),
// never by a secret: a value that is a key or a token is taken only as a reference, `$VARIABLE`
// (read from the environment of whoever starts the session) or `@/path/to/file` (read then), and
// only on a seat added with --pay-per-use when it is one of the agent's billed-per-call variables.

export const SEAT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A reference to a secret rather than the secret: `$NAME` or `@/absolute/file`. */
export const SECRET_REF = /^(\$[A-Za-z_][A-Za-z0-9_]*|@\/.+)$/;

export function seatName(name: string): string {
  if (!SEAT_NAME.test(name))
    throw new LanesError('E_USAGE', `invalid seat name ${JSON.stringify(name)}`, {
      hint: 'a seat name is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit (e.g. claude-max-2)',
    });
  return name;
}

export function seatAgent(agent: string): AgentName {
  if (!(AGENTS as readonly string[]).includes(agent))
    throw new LanesError('E_USAGE', `unknown agent ${JSON.stringify(agent)}`, {
      hint: `use one of: ${AGENTS.join(', ')}`,
    });
  return agent as AgentName;
}

/** `KEY=VALUE` pairs, checked: the login's directory absolute (`~/` expanded), secrets only by reference. */
export function seatEnv(agent: AgentName, pairs: string[], payPerUse: boolean): Record<string, string> {
  const login = AGENT_LOGINS[agent];
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq) : '';
    let value = eq > 0 ? pair.slice(eq + 1) : '';
    if (!ENV_NAME.test(key) || value === '')
      throw new LanesError('E_USAGE', `--env ${JSON.stringify(pair)}: expected KEY=VALUE`, {
        hint: `e.g. --env ${login.selects[0]}=~/.config/${agent}-2`,
      });
    const billed = login.payPerUse.includes(key);
    if (billed && !payPerUse)
      throw new LanesError(
        'E_PAY_PER_USE',
        `${key} makes ${agent} bill per call: a seat with it is a pay-per-use login, which lanes adds only when told`,
        {
          hint: `add it with --pay-per-use (its value as a reference: ${key}='$VARIABLE' or ${key}=@/path/to/file); \`--seat auto\` never picks such a seat`,
        },
      );
    if (billed || SECRET_NAME.test(key)) {
      if (!SECRET_REF.test(value))
        throw new LanesError('E_PAY_PER_USE', `${key}: lanes keeps no secret in its store`, {
          hint: `give it by reference: ${key}='$VARIABLE' (read from the environment when a session starts on the seat) or ${key}=@/path/to/file`,
        });
    } else if (login.selects.includes(key)) {
      if (value.startsWith('~/')) value = join(homeDir(), value.slice(2));
      if (!isAbsolute(value))
        throw new LanesError('E_USAGE', `${key}=${value}: the login's directory must be an absolute path`, {
          hint: `e.g. ${key}=~/.config/${agent}-2 (~/ is expanded) or a path starting with /`,
        });
    }
    env[key] = value;
  }
  if (!payPerUse && !login.selects.some((k) => k in env))
    throw new LanesError('E_USAGE', `a ${agent} seat needs ${login.selects.join(' or ')}: what selects its login`, {
      hint: `e.g. lanes seat add NAME --agent ${agent} --env ${login.selects[0]}=~/.config/${agent}-2 (log in once with that variable set)`,
    });
  if (payPerUse && !login.payPerUse.some((k) => k in env))
    throw new LanesError('E_USAGE', `--pay-per-use: the seat names none of ${agent}'s billed variables`, {
      hint: `give one: ${login.payPerUse.join(', ')} (by reference), or leave out --pay-per-use`,
    });
  return env;
}

export function seatConcurrency(text: string | undefined): number {
  if (text === undefined) return 1;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 64)
    throw new LanesError('E_USAGE', `--concurrency ${JSON.stringify(text)}: expected a whole number from 1 to 64`, {
      hint: 'how many sessions may use the login at once (default 1)',
    });
  return n;
}
