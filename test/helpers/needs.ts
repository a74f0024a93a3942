import { test } from 'node:test';
import type { TestContext } from 'node:test';

/**
 * What a test may go without under CI, and why. .ci/run installs and starts everything else
 * (root, mounts, unshare, PostgreSQL, PgBouncer, Chromium, the agents' CLIs from the registry), so
 * there a skip means something is broken: it fails the run instead of passing quietly.
 */
const ALLOWED_IN_CI: Record<string, string> = {
  'a case-folding tmpfs':
    'needs a kernel with CONFIG_UNICODE (tmpfs -o casefold, Linux 6.13+); the CI machine kernel lacks it',
};

/** What runs on the primary Node only (npm test), not again in scripts/test-nodes.mjs' runs on the others. */
const ONE_NODE_ONLY = new Set(['a PostgreSQL server', 'PgBouncer', "the agents' real CLIs"]);
const MATRIX = process.env['LANES_TEST_MATRIX'];

const allowed = (what: string) => what in ALLOWED_IN_CI || (MATRIX !== undefined && ONE_NODE_ONLY.has(what));

/** The `skip` option of a test that runs on the primary Node only (false there). */
export function machineNodeOnly(what: string): string | false {
  return MATRIX !== undefined && ONE_NODE_ONLY.has(what)
    ? `${what}: on the primary Node only (npm test); this is scripts/test-nodes.mjs' run on Node ${process.versions.node}`
    : false;
}

const failed = new Set<string>();

/**
 * The `skip` option of a test that needs `what`: false when it is there (`missing` falsy); the
 * reason otherwise, and under CI (unless allowed) one failing test that names it.
 */
export function needs(what: string, missing: string | false | null | undefined): string | false {
  if (!missing) return false;
  if (process.env['CI'] && !allowed(what) && !failed.has(what)) {
    failed.add(what);
    test(`CI provides ${what}`, () => {
      throw new Error(`under CI every test runs: ${what} is missing (${missing}); see .ci/run`);
    });
  }
  return missing;
}

/** Inside a test: skip it for `reason`, or under CI (unless allowed) fail it. */
export function skipOrFail(t: TestContext, what: string, reason: string): void {
  if (process.env['CI'] && !allowed(what))
    throw new Error(`under CI every test runs: ${what} is missing (${reason}); see .ci/run`);
  t.skip(reason);
}
