import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openLanes } from '../../src/index.js';
import { gitRepo, lanes, lanesEnv, owner } from '../helpers/env.js';

// The acting session (services/sessions/acting.ts) through the library: the rule every door uses.

async function world() {
  const repo = gitRepo();
  const env = lanesEnv();
  const ownerPid = async () => (await owner(env)).pid;
  const open = (extra: Record<string, string>) =>
    openLanes({ store: join(env['LANES_HOME']!, 'lanes.db'), env: { ...env, ...extra }, cwd: repo, notice: false });
  return { repo, env, ownerPid, open };
}

test("LANES_SESSION whose owner is out of sight yields to the session the agent running this names (lanes start -- codex, in Codex's sandbox)", async () => {
  const w = await world();
  const wrapper = (await lanes(['start', '--pid', await w.ownerPid()], { env: w.env, cwd: w.repo })).stdout.trim();
  const codexId = '01a2-test-thread';
  // The codex session as its hooks register it: attached under `codex:<id>`, owned by a live process.
  const setup = await w.open({});
  await setup.sessions.attach({ id: `codex:${codexId}`, agent: 'codex', cwd: w.repo, pid: Number(await w.ownerPid()) });
  await setup.close();
  const inSandbox = await w.open({ LANES_SESSION: wrapper, CODEX_SESSION_ID: codexId });
  assert.equal(inSandbox.sessionId, `codex:${codexId}`);
  assert.match(inSandbox.sessionHow ?? '', /CODEX_SESSION_ID/);
  await inSandbox.close();
  // Without the agent's word, LANES_SESSION as named.
  const plain = await w.open({ LANES_SESSION: wrapper });
  assert.equal(plain.sessionId, wrapper);
  await plain.close();
  // A dead or ended LANES_SESSION is kept as named, never swapped for another session.
  await lanes(['end', '--force', wrapper], { env: w.env, cwd: w.repo });
  const ended = await w.open({ LANES_SESSION: wrapper, CODEX_SESSION_ID: codexId });
  assert.equal(ended.sessionId, wrapper);
  await ended.close();
});

test('an ancestor that owns a hook session and a session lanes mcp registered: the hook session acts', async () => {
  const w = await world();
  // The library runs in this process: the rule starts at its parent, so both are owned by that.
  const setup = await w.open({});
  const mcp = await setup.sessions.start({ pid: process.ppid, agent: 'claude-code', label: 'mcp' });
  await setup.sessions.attach({ id: 'claude-code:hooks-1', agent: 'claude-code', cwd: w.repo, pid: process.ppid });
  const newer = await setup.sessions.start({ pid: process.ppid, agent: 'claude-code', label: 'mcp again' });
  await setup.close();
  assert.ok(mcp.createdAt <= newer.createdAt);
  const acting = await w.open({});
  assert.equal(acting.sessionId, 'claude-code:hooks-1', 'the agent’s own session, not the newest s- one');
  await acting.close();
});
