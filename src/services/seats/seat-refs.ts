import { readFileSync } from 'node:fs';
import { LanesError } from '../../core/errors.js';

/**
 * A seat's variable as its session gets it: `$NAME` read from the environment that starts the
 * session, `@/file` read from the file, any other value as written.
 */
export function resolveRef(
  key: string,
  value: string,
  inherited: Record<string, string | undefined>,
  seat: string,
): string {
  if (value.startsWith('$') && /^\$[A-Za-z_]\w*$/.test(value)) {
    const v = inherited[value.slice(1)];
    if (v === undefined || v === '')
      throw new LanesError(
        'E_NO_SEAT',
        `the seat ${seat} takes ${key} from $${value.slice(1)}, which is not set here`,
        {
          hint: `set ${value.slice(1)} in the environment that starts the session, or change the seat`,
        },
      );
    return v;
  }
  if (value.startsWith('@/')) {
    try {
      return readFileSync(value.slice(1), 'utf8').trim();
    } catch (e) {
      throw new LanesError(
        'E_NO_SEAT',
        `the seat ${seat} takes ${key} from ${value.slice(1)}, which cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        {
          hint: 'fix the file, or change the seat',
        },
      );
    }
  }
  return value;
}
