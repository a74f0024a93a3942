import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { CLI, tmp } from '../helpers/env.js';
import { codeAssist, googleCertificate, googleSignIn } from './fake-model/code-assist.js';
import { FakeModel } from './fake-model/server.js';
import type { Turn } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, must, runAgent } from './world.js';
import { geminiHome, geminiSeatWorld } from './gemini-world.js';
import { journal, seatOut } from './seat-checks.js';

// A Gemini CLI seat signed in with Google running out, with the released CLI (issue 29). The seat
// is the free Code Assist tier ("Gemini Code Assist for individuals"): GEMINI_CLI_HOME holds the
// sign-in (settings selectedType "oauth-personal", oauth_creds.json, google_accounts.json), a
// subscription login, so `lanes seat add` takes it without --pay-per-use. Gemini CLI talks to
// Google's Code Assist server (here the fake one, by CODE_ASSIST_ENDPOINT) with the token as a
// bearer; it checks the token at oauth2.googleapis.com first (answered by the fake over TLS, see
// code-assist.ts). After two turns the server answers its real 429 for a login out of quota
// (ErrorInfo QUOTA_EXHAUSTED, domain cloudcode-pa.googleapis.com, "Your quota will reset after
// 2h59m…"), which Gemini CLI takes as a TerminalQuotaError and reports in its TMPDIR: lanes marks
// the seat out until that reset and, with [seats] on_exhausted = stop, ends the session (exit 3).
// Pay-per-use keys in the environment that starts the session are traps: none reaches a request.

const { version } = pin('gemini');
const TOKEN = 'ya29.lanes-seat-A-google-token';
const TRAPS = ['lanes-trap-gemini-api-key', 'lanes-trap-google-api-key'];
const sh = (n: number): Turn => ({
  tools: [{ name: 'run_shell_command', input: { command: `echo seat-turn-${n}`, description: `turn ${n}` } }],
});

async function runsOut(t: TestContext, kind: 'capacity' | 'individual', says: RegExp): Promise<void> {
  {
    const cli = installedOrSkip(t, 'gemini');
    if (!cli) return;
    const base = tmp('lanes-gemini-login-');
    const tls = googleCertificate(base);
    if (!tls) {
      skipOrFail(t, 'openssl', 'openssl could not make the test certificate for Google OAuth hosts');
      return;
    }
    const { w } = geminiSeatWorld('lanes-gemini-login-world-', '[seats]\non_exhausted = "stop"\n');
    const repo = w.repo;
    // The seat's GEMINI_CLI_HOME as a user who signed in with Google and trusted the repository leaves it.
    const seat = geminiHome(base, 'A', repo, 'oauth-personal');
    for (const [name, text] of Object.entries(googleSignIn(TOKEN)))
      writeFileSync(join(seat, '.gemini', name), text, { mode: 0o600 });
    // A subscription: no --pay-per-use, and none needed.
    await must(['seat', 'add', 'A', '--agent', 'gemini', '--env', `GEMINI_CLI_HOME=${seat}`], w);

    const resetsAt = Math.ceil(Date.now() / 60_000) * 60 + 3 * 3600;
    const model = new FakeModel(codeAssist(tls), [sh(1), sh(2), sh(3), { text: 'All done.' }], 'gemini-login-seats', {
      after: 2,
      kind,
      resetsAt,
    });
    const url = await model.start();
    t.after(() => model.stop());
    const tmpdir = tmp('lanes-gemini-tmpdir-');
    // For a person reading what Gemini CLI recorded: LANES_REAL_AGENTS_DUMP=DIR keeps its debug log and reports.
    const dump = process.env['LANES_REAL_AGENTS_DUMP'];
    if (dump) mkdirSync(dump, { recursive: true });
    const debugLog = dump ? { GEMINI_DEBUG_LOG_FILE: join(dump, `gemini-login-${kind}.debug.log`) } : {};
    const env = agentEnv(w, url, {
      CODE_ASSIST_ENDPOINT: url,
      NODE_EXTRA_CA_CERTS: tls.file,
      GEMINI_API_KEY: TRAPS[0]!,
      GOOGLE_API_KEY: TRAPS[1]!,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      // Gemini CLI's error report goes to its TMPDIR: one of this test's own.
      TMPDIR: tmpdir,
      ...debugLog,
    });
    const args = ['-p', 'Run the three commands.', '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash'];
    const started = Date.now();
    const run = await runAgent(
      process.execPath,
      [CLI, 'start', '--agent', 'gemini', '--seat', 'A', '--', cli.bin, ...args],
      { cwd: repo, env, timeoutMs: 4 * 60_000 },
    );
    const reports = readdirSync(tmpdir).filter((f) => f.startsWith('gemini-client-error-'));
    const context = `exit ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''} after ${Date.now() - started}ms; served ${model.served}; requests ${model.requests.map((r) => `${r.method} ${r.headers.host}${r.path}${r.refused ? ' (429)' : ''}`).join(', ')}; egress ${model.egress.join(', ')}; reports ${reports.join(', ')}; stderr: ${run.stderr.slice(-2500)}`;
    t.diagnostic(context);
    for (const f of reports) {
      t.diagnostic(`${f}: ${readFileSync(join(tmpdir, f), 'utf8').slice(0, 1500)}`);
      if (dump) copyFileSync(join(tmpdir, f), join(dump, `gemini-login-${kind}.${f}`));
    }
    assert.ok(!run.timedOut, context);
    // The debug log lanes asked Gemini CLI to keep (unless the environment named one) is gone with the run.
    if (!dump)
      assert.deepEqual(
        readdirSync(tmpdir).filter((f) => f.startsWith('lanes-gemini-')),
        [],
      );
    // Signed in, onboarded (loadCodeAssist), and two turns served before the refusal.
    assert.ok(
      model.requests.some((r) => r.path.startsWith('/tokeninfo')),
      `Gemini CLI checked its token: ${context}`,
    );
    assert.ok(
      model.requests.some((r) => r.path.endsWith(':loadCodeAssist')),
      `Gemini CLI loaded Code Assist: ${context}`,
    );
    assert.equal(model.served, 2, `two turns before the refusal: ${context}`);
    assert.ok(
      model.requests.some((r) => r.refused),
      `the quota error was answered: ${context}`,
    );
    assert.deepEqual(model.egress, [], `nothing left the machine: ${context}`);
    assert.equal(run.code, 3, context);
    assert.match(run.stderr, /seat A ran out \(quota_exhausted\).*stopping the session/, context);
    for (const r of model.requests) {
      const sent = JSON.stringify(r.headers);
      for (const trap of TRAPS) assert.ok(!sent.includes(trap), `a request carried a trap key: ${r.path}`);
      assert.equal(r.headers['x-goog-api-key'], undefined, `no API key: ${r.path}`);
      if (r.path.includes('/v1internal:'))
        assert.equal(r.headers['authorization'], `Bearer ${TOKEN}`, `the seat's Google sign-in: ${r.path}`);
    }

    // "Your quota will reset after 2h59m…" counted from the report's time: the reset to within seconds.
    await seatOut(w, { why: 'quota_exhausted', resetsAt, withinMs: 5000 }, context);
    const log = await journal(w);
    assert.equal(log.filter((e) => e.kind === 'seat.exhausted').length, 1);
    assert.match(String(log.find((e) => e.kind === 'seat.exhausted')!.details['message']), says);
    assert.deepEqual(
      log.filter((e) => e.kind === 'seat.failover').map((e) => [e.details['action'], e.details['from']]),
      [['stop', 'A']],
    );
  }
}

const real = { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 };

// "You have exhausted your capacity on this model. Your quota will reset after 2h59m…": Gemini CLI
// takes the words for a busy server and, headless or not, waits the reset out before trying again
// ("Attempt 1 failed: … Retrying after 10800000ms..." on its stderr), writing no report.
test(
  `Gemini CLI ${version} (real CLI) signed in with Google: out of quota ("exhausted your capacity"), it waits; lanes stops the session, the seat out until the reset`,
  real,
  (t) => runsOut(t, 'capacity', /exhausted your capacity on this model/),
);

// "Individual quota reached. … Resets in 2h59m…": a TerminalQuotaError, `gemini -p` exits on it
// and reports it in its TMPDIR.
test(
  `Gemini CLI ${version} (real CLI) signed in with Google: out of quota ("Individual quota reached"), it exits; lanes stops the session, the seat out until the reset`,
  real,
  (t) => runsOut(t, 'individual', /Individual quota reached/),
);
