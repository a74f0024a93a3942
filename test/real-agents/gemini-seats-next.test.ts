import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly } from '../helpers/needs.js';
import { CLI, tmp } from '../helpers/env.js';
import { gemini } from './fake-model/gemini.js';
import { FakeModel, callId } from './fake-model/server.js';
import type { Turn } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, must, runAgent } from './world.js';
import { geminiHome, geminiSeatWorld } from './gemini-world.js';
import { journal, seatOut } from './seat-checks.js';

// Failover of a Gemini CLI session to the next seat, resuming its chat, with the released CLI
// (issue 29). Two API-key seats of one pool (pay-per-use, each named so: a Google login would need
// Google's Code Assist server, which the fake server does not speak), one server, two keys; the
// Gemini API refuses seat A's key after two turns (RESOURCE_EXHAUSTED, "Please retry in Ns" three
// hours on). With [seats] on_exhausted = next lanes' wrapper reads Gemini CLI's error report (no
// hook runs on it) and learns the conversation from lanes' hooks (SessionStart's session_id) or,
// without them, from Gemini CLI's chat record; it copies the chat from A's GEMINI_CLI_HOME to B's
// (.gemini/tmp/<project>/chats/) and runs `gemini -p CONTINUE … --resume ID` on seat B: B's first
// request carries A's turns, and the script ends there. A key in the environment that starts the
// session is a trap: every request carries a seat's key.

const { version } = pin('gemini');
const KEYS = { A: 'lanes-seat-A-key', B: 'lanes-seat-B-key' };
const TRAP = 'lanes-trap-google-api-key';
const sh = (n: number): Turn => ({
  tools: [{ name: 'run_shell_command', input: { command: `echo seat-turn-${n}`, description: `turn ${n}` } }],
});
const SCRIPT: Turn[] = [sh(1), sh(2), sh(3), { text: 'All done.' }];

for (const hooks of [false, true])
  test(
    `Gemini CLI ${version} (real CLI${hooks ? ", lanes' hooks" : ', no hooks'}): seat A runs out, the session resumes its chat on seat B, no other key used`,
    { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 },
    async (t) => {
      const cli = installedOrSkip(t, 'gemini');
      if (!cli) return;
      const { w, base } = geminiSeatWorld(
        'lanes-gemini-next-',
        '[seats]\non_exhausted = "next"\n[seats.pools.keys]\npay_per_use_next = true\n',
      );
      const repo = w.repo;
      if (hooks) await must(['hooks', 'install', 'gemini', '--command', w.lanesCommand], w);
      const resetsAt = Math.ceil(Date.now() / 60_000) * 60 + 3 * 3600;
      const model = new FakeModel(gemini, SCRIPT, `gemini-seats-next${hooks ? '-hooks' : ''}`, {
        after: 2,
        kind: 'per_minute',
        resetsAt,
        account: KEYS.A,
      });
      const url = await model.start();
      t.after(() => model.stop());
      // Each seat a GEMINI_CLI_HOME as a user who chose an API key and trusted the repository leaves it.
      const homes: Record<string, string> = {};
      for (const seat of ['A', 'B'] as const) {
        const home = (homes[seat] = geminiHome(base, seat, repo, 'gemini-api-key'));
        const env = [
          `GEMINI_CLI_HOME=${home}`,
          `GEMINI_API_KEY=$LANES_SEAT_${seat}_KEY`,
          'GOOGLE_GEMINI_BASE_URL=$LANES_URL',
        ];
        await must(
          [
            'seat',
            'add',
            seat,
            '--agent',
            'gemini',
            ...env.flatMap((e) => ['--env', e]),
            '--pool',
            'keys',
            '--pay-per-use',
          ],
          w,
        );
      }
      const env = agentEnv(w, url, {
        LANES_SEAT_A_KEY: KEYS.A,
        LANES_SEAT_B_KEY: KEYS.B,
        LANES_URL: url,
        GOOGLE_API_KEY: TRAP,
        GEMINI_CLI_NO_RELAUNCH: 'true',
        // Gemini CLI's error report goes to its TMPDIR: one of this test's own.
        TMPDIR: tmp('lanes-gemini-tmpdir-'),
      });
      const args = ['-p', 'Run the three commands.', '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash'];
      const run = await runAgent(
        process.execPath,
        [CLI, 'start', '--agent', 'gemini', '--seat', 'A', '--', cli.bin, ...args],
        { cwd: repo, env, timeoutMs: 5 * 60_000 },
      );
      const context = `exit ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''}; served ${model.served}; stderr: ${run.stderr.slice(-2500)}; stdout: ${run.stdout.slice(-800)}`;
      assert.ok(!run.timedOut, context);
      assert.match(run.stderr, /seat A ran out \(quota_exhausted\) until .*; resuming the agent on seat B/, context);
      assert.doesNotMatch(run.stderr, /cannot resume/, context);
      assert.equal(run.code, 0, `the agent on seat B did not finish: ${context}`);
      assert.equal(model.served, SCRIPT.length, `the script was not played to its end: ${context}`);

      const calls = model.requests.filter((r) => gemini.isModelCall(r.method, r.path));
      for (const r of model.requests)
        assert.ok(!JSON.stringify(r.headers).includes(TRAP), `a request carried the trap key: ${r.path}`);
      const on = (seat: 'A' | 'B') => calls.filter((r) => r.headers['x-goog-api-key'] === KEYS[seat]);
      assert.equal(on('A').length + on('B').length, calls.length, "every model call carried a seat's key");
      const [a, b] = [on('A'), on('B')];
      assert.equal(a.filter((r) => r.scripted).length, 2, `two turns on seat A: ${context}`);
      assert.ok(
        a.some((r) => r.refused),
        'seat A was refused',
      );
      assert.ok(b.every((r) => !r.refused) && b.filter((r) => r.scripted).length === 2, 'the rest on seat B');
      assert.ok(Math.max(...a.map((r) => r.at)) < Math.min(...b.map((r) => r.at)), 'seat A left before seat B began');
      // Resumed, not started afresh: B's first turn carries what the commands printed on seat A, and
      // ends on the turn that says to carry on with the task (quoted: with lanes' hooks Gemini CLI's
      // resume drops the first prompt, core/agent-logins.ts geminiResume).
      const first = b.find((r) => r.scripted)!.body;
      for (const turn of [0, 1])
        assert.match(
          gemini.toolResult(first, callId(turn, 0)) ?? '',
          new RegExp(`seat-turn-${turn + 1}`),
          `B's first request lacks A's turn ${turn + 1}: ${JSON.stringify(first).slice(-1500)}`,
        );
      const contents = (first as { contents: { role: string; parts: { text?: string }[] }[] }).contents;
      const last = contents.at(-1)!;
      assert.equal(last.role, 'user');
      assert.match(last.parts.map((p) => p.text ?? '').join(' '), /Continue the task .*first given: Run the three/);
      assert.ok(readdirSync(join(homes['B']!, '.gemini', 'tmp')).length > 0, "the chat is in B's home");

      await seatOut(w, { why: 'quota_exhausted', resetsAt, withinMs: 5000 }, context);
      const log = await journal(w);
      const exhausted = log.filter((e) => e.kind === 'seat.exhausted');
      assert.deepEqual(
        exhausted.map((e) => e.subject),
        ['A'],
        `seat.exhausted: ${JSON.stringify(exhausted)}`,
      );
      assert.deepEqual(
        log
          .filter((e) => e.kind === 'seat.failover')
          .map((e) => [e.details['action'], e.details['from'], e.details['to']]),
        [['moved', 'A', 'B']],
      );
      const grants = log.filter((e) => e.kind === 'claim.grant' && e.subject.startsWith('seat:')).map((e) => e.subject);
      assert.deepEqual(grants, ['seat:A/1', 'seat:B/1']);
    },
  );
