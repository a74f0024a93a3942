import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { UNREACHABLE } from '../real-agents/install.js';
import assert from 'node:assert/strict';
import { CLI, gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';
import { fixture, hook } from '../helpers/hooks.js';

// The released OpenCode CLI (npm opencode-ai, installed into a cache outside the project's
// dependencies), offline, with a scripted model behind an OpenAI-compatible endpoint
// (test/fixtures/fake-openai.mjs), running lanes' plugin as `lanes hooks install opencode` writes
// it. Asserted through OpenCode's own behaviour: what its model is sent next.
const VERSION = '1.18.33';
const A = 'a1a1a1a1-1111-4111-8111-a1a1a1a1a1a1';

function sh(file: string, args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; timeout: number }) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(file, args, { ...o, maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    // `opencode run` reads a piped stdin as more prompt until it closes.
    child.stdin?.end();
  });
}

const CACHE = join(
  process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'),
  'lanes-test-agents',
  `opencode-ai@${VERSION}`,
);

/** The opencode binary: $LANES_OPENCODE_BIN, else opencode-ai@VERSION installed once into the user's cache. */
async function opencodeBinary(): Promise<{ bin: string } | { why: string }> {
  const given = process.env['LANES_OPENCODE_BIN'];
  if (given) return existsSync(given) ? { bin: given } : { why: `LANES_OPENCODE_BIN=${given} does not exist` };
  const dir = CACHE;
  const bin = join(dir, 'node_modules', '.bin', 'opencode');
  if (existsSync(bin)) return { bin };
  mkdirSync(dir, { recursive: true });
  const r = await sh(
    'npm',
    ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', `opencode-ai@${VERSION}`],
    {
      timeout: 300_000,
    },
  );
  if (existsSync(bin)) return { bin };
  const why = `npm install opencode-ai@${VERSION} failed: ${r.stderr.trim().slice(-300)}`;
  // Only the registry out of reach may keep OpenCode out of the run; any other failure is a failure.
  if (UNREACHABLE.test(r.stderr)) return { why };
  throw new Error(why);
}

/** The end of OpenCode's own log, for a failure message. */
function opencodeLog(home: string): string {
  const dir = join(home, '.local', 'share', 'opencode', 'log');
  try {
    return readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n')
      .slice(-4000);
  } catch {
    return '(no OpenCode log)';
  }
}

interface ModelRequest {
  body: { tools?: unknown[]; messages: { role: string; content?: unknown }[] };
}

test(
  `OpenCode ${VERSION} with lanes' plugin: briefed in its system prompt, a claimed edit fails with lanes' reason as the tool result its model reads next, the early-conflict warning follows an edit's output, exit ends the session`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 600_000 },
  async (t) => {
    const found = await opencodeBinary();
    if ('why' in found) return skipOrFail(t, 'the npm registry', found.why);
    const repo = gitRepo();
    mkdirSync(join(repo, 'src', 'billing'), { recursive: true });
    writeFileSync(join(repo, 'src', 'billing', 'seat.ts'), 'export const limit = 1\n');
    writeFileSync(join(repo, 'src', 'other.ts'), 'export const other = 1\n');
    const env = lanesEnv();
    const opts = { env, cwd: repo };
    // Session A (Copilot CLI's hooks) holds src/billing and has changed src/other.ts.
    await hook('copilot', 'session-start', fixture('copilot', 'session-start', repo, A), opts);
    assert.equal(
      (await lanes(['claim', 'path:src/billing'], { ...opts, env: { ...env, LANES_SESSION: `copilot:${A}` } })).code,
      0,
    );
    const edited = fixture('copilot', 'post-tool-use-edit', repo, A, (p) => {
      p['toolArgs'] = JSON.stringify({ path: join(repo, 'src', 'other.ts') });
    });
    assert.equal((await hook('copilot', 'post-tool-use', edited, opts)).code, 0);
    assert.equal(
      (await lanes(['hooks', 'install', 'opencode', '--command', `${process.execPath} ${CLI}`], opts)).code,
      0,
    );

    const log = join(tmp(), 'requests.jsonl');
    const model = node('fake-openai.mjs', [
      log,
      JSON.stringify({
        tool: 'edit',
        args: { filePath: 'src/billing/seat.ts', oldString: 'limit = 1', newString: 'limit = 2' },
      }),
      JSON.stringify({
        tool: 'edit',
        args: { filePath: 'src/other.ts', oldString: 'other = 1', newString: 'other = 2' },
      }),
      JSON.stringify({ text: 'done' }),
    ]);
    const port = (await model.waitFor(/port (\d+)/))[1];
    writeFileSync(
      join(repo, 'opencode.jsonc'),
      JSON.stringify({
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Fake',
            options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'x' },
            models: { m: { name: 'm', tool_call: true } },
          },
        },
        model: 'fake/m',
        permission: { edit: 'allow', bash: 'allow' },
      }),
    );
    const home = tmp();
    const agentEnv = {
      ...env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      XDG_CACHE_HOME: join(home, '.cache'),
      // OpenCode takes its project directory from PWD (the test runner's own otherwise).
      PWD: repo,
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
    };
    const run = await sh(found.bin, ['run', '-m', 'fake/m', 'raise the seat limit'], {
      cwd: repo,
      env: agentEnv,
      timeout: 180_000,
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}\n${opencodeLog(home)}`);

    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ModelRequest)
      .filter((r) => r.body.tools);
    assert.equal(calls.length, 3, 'three model turns: two edits, then done');
    const system = (r: ModelRequest) =>
      r.body.messages
        .filter((m) => m.role === 'system')
        .map((m) => JSON.stringify(m.content))
        .join('\n');
    assert.match(
      system(calls[0] as ModelRequest),
      /you are session opencode:ses_/,
      'the briefing is in the first system prompt',
    );
    const toolResults = (r: ModelRequest) =>
      r.body.messages.filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
    assert.match(
      toolResults(calls[1] as ModelRequest)[0] ?? '',
      new RegExp(`src/billing/seat\\.ts is claimed by session copilot:${A}.*lanes claim path:src/billing/ --wait`),
    );
    assert.match(
      toolResults(calls[2] as ModelRequest)[1] ?? '',
      new RegExp(`src/other\\.ts also changed by session copilot:${A}`),
    );
    assert.equal(
      readFileSync(join(repo, 'src', 'billing', 'seat.ts'), 'utf8'),
      'export const limit = 1\n',
      'the claimed file is untouched',
    );
    assert.match(readFileSync(join(repo, 'src', 'other.ts'), 'utf8'), /other = 2/, 'the warned edit went through');
    const sessions = JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as {
      id: string;
      state: string;
    }[];
    const oc = sessions.filter((s) => s.id.startsWith('opencode:'));
    assert.deepEqual(
      oc.map((s) => s.state),
      ['ended'],
      'one OpenCode session, ended when OpenCode exited',
    );
  },
);
