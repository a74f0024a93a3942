import { LanesError } from '../../core/errors.js';

// The refusals both backends give in the same words, so a user sees the same message whichever
// store they use.

export function sessionExists(id: string): LanesError {
  return new LanesError('E_USAGE', `a session with id ${id} already exists`, {
    hint: 'choose another id, or end the old session with `lanes end ' + id + '`',
  });
}

export function fenced(name: string, token: number): LanesError {
  return new LanesError(
    'E_FENCED',
    `lost the gate ${name}: it was taken over while this process held it (token ${token})`,
    {
      hint: 'the change was NOT written; run the operation again',
      details: { gate: name, token },
    },
  );
}

export function notEmpty(location: string, counts: { sessions: number; claims: number; state: number }): LanesError {
  return new LanesError(
    'E_STORE_NOT_EMPTY',
    `the target store ${location} is not empty (${counts.sessions} sessions, ${counts.claims} claims, ${counts.state} state records)`,
    {
      hint: 'copy into an empty store, or pass --force to replace what it holds (fencing counters are kept at the higher value)',
      details: { store: location, ...counts },
    },
  );
}
