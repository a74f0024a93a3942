// lanes ui on a team store (PostgreSQL): every host's sessions, another host's judged by its lease.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';
import { PG_SKIP, pgSchemaUrl } from '../helpers/pg.js';
import { http, startUi } from '../helpers/ui.js';

test("on a team store the dashboard shows every host's sessions", { skip: PG_SKIP }, async () => {
  const { url, drop } = pgSchemaUrl();
  after(drop);
  const env = { ...lanesEnv(), LANES_STORE: url };
  const repo = gitRepo();
  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const ids: Record<string, string> = {};
  for (const host of ['build-box', '']) {
    const r = await lanes(['start', '--pid', pid!, '--label', `on ${host || 'here'}`, '--json'], {
      env: host ? { ...env, LANES_HOST_ID: host } : env,
      cwd: repo,
    });
    assert.equal(r.code, 0, r.stderr);
    ids[host || 'here'] = (JSON.parse(r.stdout) as { id: string }).id;
  }
  const ui = await startUi(env, repo);
  try {
    const r = await http(ui.port, '/api/fleet', { headers: { 'x-lanes-token': ui.token } });
    assert.equal(r.status, 200, r.body);
    const fleet = JSON.parse(r.body) as {
      store: { backend: string; location: string };
      sessions: { id: string; host: string; state: string }[];
    };
    assert.equal(fleet.store.backend, 'postgres');
    assert.ok(!fleet.store.location.includes('lanes-pw'), 'no password shown');
    const remote = fleet.sessions.find((s) => s.id === ids['build-box']);
    assert.deepEqual([remote?.host, remote?.state], ['build-box', 'live'], 'live by its lease');
    assert.equal(fleet.sessions.find((s) => s.id === ids['here'])?.state, 'live');
  } finally {
    await ui.stop();
    owner.proc.stdin.end();
  }
});
