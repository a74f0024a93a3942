import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { TomlError, parse, stringify } from 'smol-toml';
import { mergeConfig, validateConfig } from '../../src/core/config.js';
import type { LanesConfig } from '../../src/core/config.js';
import { openLanes } from '../../src/index.js';
import { lanesEnv, tmp } from '../helpers/env.js';
import { configMerged, configValid } from './config-model.js';
import { RUNS, codeOf, params } from './runs.js';

// lanes.toml and the user config through the library (lib.config(): read, TOML-parsed, validated,
// merged), checked against the model of the README's rules: valid files merge as the model says,
// anything else is E_CONFIG naming the first bad file; no other error, whatever the text.

const junk = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.string({ maxLength: 6 }),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.integer(), { maxLength: 2 }),
);
// Each value is mostly well formed and sometimes not, so that whole files are often valid (the
// merge gets checked) and every single way to be invalid still comes up.
const mostly = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: bad });
/** A key present one time in eight. */
const rarely = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
const compact = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const portName = mostly(
  fc.constantFrom('web', 'api', 'db_2', 'W', 'x'.repeat(32)),
  fc.oneof(fc.constantFrom('x'.repeat(33), '2web', 'we-b', '', 'wéb'), fc.string({ maxLength: 4 })),
);
const port = fc.oneof(fc.integer({ min: 1024, max: 65535 }), fc.integer({ min: 0, max: 70000 }));
const range = mostly(
  fc.tuple(port, port).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
  fc.oneof(
    fc.tuple(port, port).map(([a, b]) => `${a}-${b}`),
    fc.constantFrom('1024-1024', '123456-1', '1024 - 2000', '-', '2000', '01024-2000'),
    junk,
  ),
);
const envKey = mostly(
  fc.constantFrom('DATABASE_NAME', 'A', '_x', '__proto__', 'constructor', 'toString'),
  fc.oneof(fc.constantFrom('1A', 'A-B', 'a b', '', 'LANES_SESSION', 'TMPDIR'), fc.string({ maxLength: 4 })),
);
const template = mostly(
  fc.array(fc.constantFrom('{repo}', '{slug}', '{session}', '{ticket}', '_', 'x', '-', ':', '.'), { maxLength: 4 }),
  fc.oneof(fc.constantFrom(['{nope}'], ['{}'], ['x{', 'repo}'], ['{repo}', ' '], ['a/b'], ['$x'], ['}'], ['{']), junk),
).map((t) => (Array.isArray(t) && t.every((x) => typeof x === 'string') ? t.join('') : t));
const strip = mostly(
  fc.array(fc.constantFrom('ANTHROPIC_API_KEY', '*_API_KEY', 'A?'), { maxLength: 3 }),
  fc.oneof(fc.array(fc.constantFrom('a b', '', 'X-Y', 'A'), { minLength: 1, maxLength: 2 }), junk),
);
const ports = fc
  .record(
    { names: mostly(fc.array(portName, { maxLength: 3 }), junk), range, extra: rarely(junk) },
    { requiredKeys: [] },
  )
  .map(compact);
const env = fc
  .tuple(fc.array(fc.tuple(envKey, template), { maxLength: 3 }), fc.option(strip, { nil: undefined }))
  .map(([entries, s]) => Object.fromEntries([...entries, ...(s === undefined ? [] : [['strip', s]])]));
const snapshot = fc
  .record({ on_stop: mostly(fc.boolean(), junk), other: rarely(junk) }, { requiredKeys: [] })
  .map(compact);
const worktree = fc
  .record({ include_links_outside: mostly(fc.boolean(), junk), other: rarely(junk) }, { requiredKeys: [] })
  .map(compact);
const store = fc
  .record({
    url: mostly(fc.constantFrom('postgres://u@h/db', '/tmp/x.db'), fc.constantFrom(' ', '', 1)),
    other: rarely(junk),
  })
  .map(compact);
// [store] belongs in the user's file only: a repository's file has it one time in eight.
const configData = (user: boolean) =>
  fc
    .record({
      ports: fc.option(mostly(ports, junk), { nil: undefined }),
      env: fc.option(mostly(env, junk), { nil: undefined }),
      snapshot: fc.option(mostly(snapshot, junk), { nil: undefined }),
      store: user ? fc.option(mostly(store, junk), { nil: undefined }) : rarely(store),
      worktree: user ? fc.option(mostly(worktree, junk), { nil: undefined }) : rarely(worktree),
      other: rarely(junk),
    })
    .map(compact);
const fileOf = (user: boolean) =>
  fc.oneof(
    { weight: 8, arbitrary: configData(user).map((data) => ({ data, text: stringify(data) })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((text) => ({ data: null, text })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('[ports\n', 'a = ', '[env]\nX = "{repo}"\nX = "y"\n', '\u0000')
        .map((text) => ({ data: null, text })),
    },
  );
const repoFile = fileOf(false);
const userFile = fileOf(true);

type Outcome = LanesConfig | { error: string; message: string };
type File = { data: Record<string, unknown> | null; text: string };

/** The model's verdict on an outcome; files given as raw text are only held to "E_CONFIG or valid". */
function checkOutcome(got: Outcome, repo: File, user: File, repoPath: string, userPath: string): void {
  if ('error' in got) assert.equal(got.error, 'E_CONFIG', got.message);
  if (repo.data === null || user.data === null) return;
  const repoOk = configValid(repo.data, false);
  const userOk = configValid(user.data, true);
  if (!repoOk || !userOk) {
    assert.ok('error' in got, `accepted ${JSON.stringify([repo.text, user.text])}`);
    assert.ok(got.message.startsWith(repoOk ? userPath : repoPath), got.message);
    return;
  }
  assert.ok(!('error' in got), `refused ${JSON.stringify([repo.text, user.text])}: ${JSON.stringify(got)}`);
  assert.deepEqual(got, configMerged([repo.data, user.data]));
}

test('config rules: any two files parse, validate and merge as the model says, or are E_CONFIG', () => {
  fc.assert(
    fc.property(repoFile, userFile, (repo, user) => {
      let got: Outcome;
      try {
        // What the library does with each file's text (services/config.ts), minus the disk.
        const sources = [
          { file: '/r/lanes.toml', text: repo.text, user: false },
          { file: '/u/config.toml', text: user.text, user: true },
        ].map((s) => ({ ...s, data: parse(s.text) as Record<string, unknown> }));
        got = mergeConfig(sources.map((s) => validateConfig(s, { user: s.user })));
      } catch (e) {
        if (e instanceof TomlError) return; // a syntax error: the library test below covers its message
        got = { error: codeOf(e), message: (e as Error).message };
      }
      checkOutcome(got, repo, user, '/r/lanes.toml', '/u/config.toml');
    }),
    params(),
  );
});

// Through the library with real files: reading, TOML syntax errors (file:line:column) and the
// merge. LIBRARY_RUNS cases, not 10,000: each writes two files and reads them back through the
// library (2-8 ms a case on the shared 2-core machine); the rules themselves get 10,000 above.
const LIBRARY_RUNS = Math.min(RUNS, 500);

test('lanes.toml and the user config through the library: the model, or E_CONFIG naming the file', async () => {
  const dir = tmp('lanes-config-');
  const userPath = join(dir, 'user.toml');
  const repoPath = join(dir, 'lanes.toml');
  const envVars = { ...lanesEnv(join(dir, 'home')), LANES_CONFIG: userPath };
  const lib = await openLanes({ store: join(dir, 'lanes.db'), env: envVars, cwd: dir, notice: false, session: null });
  after(() => lib.close());
  await fc.assert(
    fc.asyncProperty(repoFile, userFile, async (repo, user) => {
      writeFileSync(repoPath, repo.text);
      writeFileSync(userPath, user.text);
      let got: Outcome;
      try {
        const { files: _files, ...config } = await lib.config(dir);
        got = config;
      } catch (e) {
        got = { error: codeOf(e), message: (e as Error).message };
      }
      // A TOML syntax error in either file comes first, naming that file, line and column.
      const broken = [repo.text, user.text].map((t) => {
        try {
          parse(t);
          return false;
        } catch {
          return true;
        }
      });
      if (broken[0] || broken[1]) {
        assert.ok('error' in got, 'a TOML syntax error was accepted');
        const names = [broken[0] ? repoPath : null, broken[1] ? userPath : null].filter((n) => n !== null);
        assert.ok(
          names.some((n) => got.message.startsWith(`${n}:`)),
          got.message,
        );
        assert.match(got.message, /^\S+:\d+:\d+: /);
        return;
      }
      checkOutcome(got, repo, user, repoPath, userPath);
    }),
    params(LIBRARY_RUNS),
  );
});
