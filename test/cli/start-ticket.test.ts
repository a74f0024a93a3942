import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { openLanes } from '../../src/index.js';
import { gitRepo, lanes, lanesEnv, owner } from '../helpers/env.js';
import { call, errorCode, mcpAgent, textOf } from '../helpers/mcp.js';

// A ticket is claimed before the work starts: `lanes start --ticket T` registers the session and
// claims ticket:T in one transaction, all or nothing. Before this, a second start on a held ticket
// printed nothing and exited 0.

async function world() {
  const repo = gitRepo();
  const env = lanesEnv();
  const own = () => owner(env);
  const start = (pid: string, ...args: string[]) =>
    lanes(['start', '--pid', pid, '--json', ...args], { env, cwd: repo });
  const sessions = async () =>
    JSON.parse((await lanes(['ls', '--all', '--json'], { env, cwd: repo })).stdout) as {
      id: string;
      ticket: string | null;
      claims: { kind: string; name: string; token: number }[];
    }[];
  const journal = async (kind: string) =>
    (await lanes(['log', '--kind', kind, '--json'], { env, cwd: repo })).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { session: string | null; subject: string; details: Record<string, unknown> });
  return { repo, env, own, start, sessions, journal };
}

test('start --ticket claims the ticket with the session; a second start on it exits 3 naming the holder and registers nothing', async () => {
  const w = await world();
  const a = await w.own();
  const first = await w.start(a.pid, '--ticket', 'SEAT-3', '--label', 'billing', '--agent', 'codex');
  assert.equal(first.code, 0, first.stderr);
  const s = JSON.parse(first.stdout);
  assert.equal(s.ticketGrant.token, 1);
  const b = await w.own();
  const second = await w.start(b.pid, '--ticket', 'SEAT-3', '--label', 'late');
  assert.equal(second.code, 3, second.stderr);
  // --json: the error is the JSON answer (no session id anywhere).
  const err = JSON.parse(second.stdout).error;
  assert.equal(err.code, 'E_CLAIM_HELD');
  assert.match(
    err.message,
    new RegExp(`ticket SEAT-3 is held by session ${s.id} \\(billing, agent codex, ticket SEAT-3\\), pid ${a.pid}`),
  );
  assert.match(err.message, /no session was started/);
  assert.match(err.hint, /--join/);
  const plain = await lanes(['start', '--pid', b.pid, '--ticket', 'SEAT-3'], { env: w.env, cwd: w.repo });
  assert.equal(plain.code, 3);
  assert.equal(plain.stdout, '', 'no session id is printed');
  assert.match(plain.stderr, /ticket SEAT-3 is held by session/);
  const all = await w.sessions();
  assert.deepEqual(
    all.map((x) => x.id),
    [s.id],
    'nothing was registered',
  );
  assert.deepEqual(
    all[0]!.claims.map((c) => `${c.kind}:${c.name}`),
    ['ticket:SEAT-3'],
  );
  const refused = await w.journal('claim.refuse');
  assert.equal(refused.length, 2, 'each refused start is journaled');
  assert.equal(refused[0]!.session, null);
  assert.equal(refused[0]!.subject, 'ticket:SEAT-3');
  assert.equal(refused[0]!.details['label'], 'late');
  // --worktree on a held ticket makes no worktree and no branch.
  const wt = await w.start(b.pid, '--ticket', 'SEAT-3', '--worktree');
  assert.equal(wt.code, 3, wt.stderr);
  const lanesDir = join(dirname(w.repo), `${basename(w.repo)}.lanes`);
  assert.ok(!existsSync(lanesDir) || readdirSync(lanesDir).length === 0, 'no worktree was made');
  // A dead holder's ticket is taken over with the next token.
  await a.kill();
  const heir = await w.start(b.pid, '--ticket', 'SEAT-3', '--worktree');
  assert.equal(heir.code, 0, heir.stderr);
  assert.equal(JSON.parse(heir.stdout).ticketGrant.token, 2);
  assert.equal((await w.journal('claim.takeover')).length, 1);
});

test('--join registers beside the holder without the claim, journaled, and both are flagged as sharing the ticket', async () => {
  const w = await world();
  const a = await w.own();
  const holder = JSON.parse((await w.start(a.pid, '--ticket', 'SEAT-4', '--label', 'first')).stdout);
  const b = await w.own();
  const joined = await w.start(b.pid, '--ticket', 'SEAT-4', '--join', '--label', 'second');
  assert.equal(joined.code, 0, joined.stderr);
  const j = JSON.parse(joined.stdout);
  assert.equal(j.ticket, 'SEAT-4');
  assert.equal(j.ticketGrant, null);
  assert.deepEqual(j.joined, { session: holder.id, token: 1 });
  const entries = await w.journal('session.join');
  assert.equal(entries.length, 1);
  assert.equal(entries[0]!.session, j.id);
  assert.equal(entries[0]!.details['holder'], holder.id);
  const mine = (await w.sessions()).find((x) => x.id === j.id)!;
  assert.deepEqual(mine.claims, [], 'the joiner does not hold the ticket');
  const c = JSON.parse((await lanes(['conflicts', '--json'], { env: w.env, cwd: w.repo })).stdout);
  assert.deepEqual(
    c.sameTicket.map((x: { ticket: string; sessions: string[] }) => ({ ...x, sessions: [...x.sessions].sort() })),
    [{ ticket: 'SEAT-4', sessions: [holder.id, j.id].sort() }],
  );
  assert.equal((await w.start(b.pid, '--join')).code, 2, '--join without --ticket is a usage error');
  // Nobody to join: the ticket is claimed.
  const alone = JSON.parse((await w.start(b.pid, '--ticket', 'SEAT-FREE', '--join')).stdout);
  assert.equal(alone.joined, null);
  assert.equal(alone.ticketGrant.token, 1);
});

test('concurrent starts on one ticket: exactly one session is registered, in real processes', async () => {
  const w = await world();
  const o = await w.own();
  const runs = await Promise.all(Array.from({ length: 6 }, () => w.start(o.pid, '--ticket', 'SEAT-5')));
  assert.deepEqual(runs.map((r) => r.code).sort(), [0, 3, 3, 3, 3, 3], runs.map((r) => r.stderr).join('\n'));
  const registered = (await w.sessions()).filter((s) => s.ticket === 'SEAT-5');
  assert.equal(registered.length, 1, 'the refused starts registered nothing');
});

test('the library and the MCP door follow the same rule: sessions.start refuses a held ticket; an MCP claim of it is refused', async () => {
  const w = await world();
  const a = await w.own();
  const held = JSON.parse((await w.start(a.pid, '--ticket', 'SEAT-6')).stdout);
  const lib = await openLanes({
    store: join(w.env['LANES_HOME']!, 'lanes.db'),
    env: w.env,
    cwd: w.repo,
    session: null,
    notice: false,
  });
  try {
    await assert.rejects(
      lib.sessions.start({ pid: process.pid, ticket: 'SEAT-6' }),
      (e: { code?: string; message?: string }) => e.code === 'E_CLAIM_HELD' && e.message!.includes(held.id),
    );
  } finally {
    await lib.close();
  }
  const { client } = await mcpAgent('mcp-ticket', w.repo, w.env);
  const r = await call(client, 'claim', { resources: ['ticket:SEAT-6'] });
  assert.equal(errorCode(r), 'E_CLAIM_HELD', textOf(r));
  assert.match(textOf(r), new RegExp(held.id));
});
