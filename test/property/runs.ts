// How many cases each property runs, and how to replay a failure. fast-check puts the seed and the
// shrunk counterexample's path in the message of the error fc.assert throws; node:test prints that
// message under the failing test, so a CI log is enough to replay it:
//   LANES_PROPERTY_SEED=<seed> LANES_PROPERTY_PATH=<path> \
//     node --import tsx --test --test-name-pattern=<test name> test/property/<file>.test.ts
import type fc from 'fast-check';

function envInt(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  if (!/^-?\d+$/.test(v)) throw new Error(`${name} must be an integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** Cases per property (CI: the default, 10,000). */
export const RUNS = envInt('LANES_PROPERTY_RUNS', 10_000);

const seed = process.env['LANES_PROPERTY_SEED'];
const path = process.env['LANES_PROPERTY_PATH'];

/** Parameters of every fc.assert here: the run count, and the replayed seed/path when given. */
export function params<T>(numRuns = RUNS): fc.Parameters<T> {
  return {
    numRuns,
    // Each case is small; a slow one means a hang, which must fail rather than stall CI.
    interruptAfterTimeLimit: 5 * 60_000,
    markInterruptAsFailure: true,
    ...(seed !== undefined && seed !== '' ? { seed: envInt('LANES_PROPERTY_SEED', 0) } : {}),
    ...(path ? { path } : {}),
  };
}

/** The error's code, or its constructor name when it has none: what a property says was thrown. */
export function codeOf(e: unknown): string {
  if (e && typeof e === 'object' && 'code' in e && typeof (e as { code: unknown }).code === 'string')
    return (e as { code: string }).code;
  return e instanceof Error ? e.constructor.name : typeof e;
}

/** JSON with invisible and direction-changing characters escaped, so a counterexample reads as it is. */
export function show(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u00a0\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\u3000\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
