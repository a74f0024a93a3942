import { LanesError } from '../../core/errors.js';

export function notEmpty(location: string, counts: { sessions: number; claims: number; state: number }): LanesError {
  return new LanesError('E_STORE_NOT_EMPTY', `the target store ${location} is not empty (${counts.sessions} sessions, ${counts.claims} claims, ${counts.state} state records)`, {
    hint: 'copy into an empty store, or pass --force to replace what it holds (fencing counters are kept at the higher value)',
    details: { store: location, ...counts },
  });
}
