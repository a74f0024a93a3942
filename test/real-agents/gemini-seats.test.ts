import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly } from '../helpers/needs.js';
import { CLI, tmp } from '../helpers/env.js';
import { gemini } from './fake-model/gemini.js';
import { FakeModel } from './fake-model/server.js';
import type { Turn } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, must, runAgent } from './world.js';
import { geminiHome, geminiSeatWorld } from './gemini-world.js';
import { journal, seatOut } from './seat-checks.js';

// A Gemini CLI seat running out, with the released CLI (issue 29). Gemini CLI 0.61 runs no hook on
// a quota error (`gemini -p` exits before AfterAgent or SessionEnd run) and keeps none in its chat
// record: lanes' wrapper reads the error report Gemini CLI writes to its TMPDIR
// (gemini-client-error-Turn.run-sendMessageStream-*.json, a TerminalQuotaError). The seat is an API
// key's (a Google login would need Google's Code Assist server, which the fake server does not
// speak): a pay-per-use seat, named, its key and endpoint by reference. The Gemini API refuses it
// after two turns with RESOURCE_EXHAUSTED, "Please retry in Ns" three hours on; with
// [seats] on_exhausted = stop the session ends (exit 3), the seat out until then. Another key in
// the environment that starts the session is a trap: every request carries the seat's.

const { version } = pin('gemini');
const KEY = 'lanes-seat-A-key';
const TRAP = 'lanes-trap-google-api-key';
const sh = (n: number): Turn => ({
  tools: [{ name: 'run_shell_command', input: { command: `echo seat-turn-${n}`, description: `turn ${n}` } }],
});

test(
  `Gemini CLI ${version} (real CLI): its quota runs out on a seat, the session stops, the seat is out until the reset`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'gemini');
    if (!cli) return;
    const { w, base } = geminiSeatWorld('lanes-gemini-seats-', '[seats]\non_exhausted = "stop"\n');
    const repo = w.repo;
    // The seat's GEMINI_CLI_HOME as a user who chose an API key and trusted the repository leaves it.
    const seat = geminiHome(base, 'A', repo, 'gemini-api-key');
    const seatEnv = [
      'GEMINI_CLI_HOME',
      seat,
      'GEMINI_API_KEY',
      '$LANES_SEAT_A_KEY',
      'GOOGLE_GEMINI_BASE_URL',
      '$LANES_SEAT_A_URL',
    ];
    const pairs = [0, 2, 4].flatMap((i) => ['--env', `${seatEnv[i]}=${seatEnv[i + 1]}`]);
    await must(['seat', 'add', 'A', '--agent', 'gemini', ...pairs, '--pay-per-use'], w);

    const resetsAt = Math.ceil(Date.now() / 60_000) * 60 + 3 * 3600;
    const model = new FakeModel(gemini, [sh(1), sh(2), sh(3), { text: 'All done.' }], 'gemini-seats', {
      after: 2,
      kind: 'per_minute',
      resetsAt,
    });
    const url = await model.start();
    t.after(() => model.stop());
    const env = agentEnv(w, url, {
      LANES_SEAT_A_KEY: KEY,
      LANES_SEAT_A_URL: url,
      GOOGLE_API_KEY: TRAP,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      // Gemini CLI's error report goes to its TMPDIR: one of this test's own.
      TMPDIR: tmp('lanes-gemini-tmpdir-'),
    });
    const args = ['-p', 'Run the three commands.', '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash'];
    const run = await runAgent(
      process.execPath,
      [CLI, 'start', '--agent', 'gemini', '--seat', 'A', '--', cli.bin, ...args],
      {
        cwd: repo,
        env,
        timeoutMs: 4 * 60_000,
      },
    );
    const context = `exit ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''}; served ${model.served}; stderr: ${run.stderr.slice(-2500)}`;
    assert.ok(!run.timedOut, context);
    assert.equal(model.served, 2, `two turns before the refusal: ${context}`);
    assert.equal(run.code, 3, context);
    assert.match(run.stderr, /seat A ran out \(quota_exhausted\).*stopping the session/, context);
    for (const r of model.requests) {
      assert.ok(!JSON.stringify(r.headers).includes(TRAP), `a request carried the trap key: ${r.path}`);
      if (gemini.isModelCall(r.method, r.path))
        assert.equal(r.headers['x-goog-api-key'], KEY, `the seat's key: ${r.path}`);
    }

    // "Please retry in Ns" counted from the report's time: the reset to within the seconds between them.
    await seatOut(w, { why: 'quota_exhausted', resetsAt, withinMs: 5000 }, context);
    const log = await journal(w);
    assert.equal(log.filter((e) => e.kind === 'seat.exhausted').length, 1);
    assert.match(
      String(log.find((e) => e.kind === 'seat.exhausted')!.details['message']),
      /exceeded your current quota/,
    );
    assert.deepEqual(
      log.filter((e) => e.kind === 'seat.failover').map((e) => [e.details['action'], e.details['from']]),
      [['stop', 'A']],
    );
  },
);
