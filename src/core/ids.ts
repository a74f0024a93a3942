import { crypto } from './builtins.js';
import { LanesError } from './errors.js';

// Crockford base32 without ambiguous letters; lowercase so ids are easy to type.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A new session id: `s-` + 10 random base32 characters (50 bits; collisions are refused by the store). */
export function newSessionId(): string {
  const bytes = crypto().randomBytes(10);
  let out = 's-';
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

// Agent adapters register ids like `claude-code:0b9f…`; ids also name per-session directories,
// so they must be safe path components.
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,199}$/;

export function assertSessionId(id: string, what = 'session id'): string {
  if (!SESSION_ID.test(id)) {
    throw new LanesError('E_USAGE', `invalid ${what} ${JSON.stringify(id)}`, {
      hint: 'a session id is 1-200 characters of letters, digits, ":", ".", "_" or "-", starting with a letter or digit (see `lanes ls`)',
    });
  }
  return id;
}
