import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import type { NightReport } from '../../src/services/report/report.js';
import { renderReport } from '../../src/cli/report-text.js';
import { PG_SKIP, pgSchemaUrl } from '../helpers/pg.js';
import { CLI, gitRepo, lanes, lanesEnv, lanesChild, node, run, tmp } from '../helpers/env.js';

// `lanes report` on a night as it happens (issue 26, item 1): a land, a refusal, a session that
// died with uncommitted work after a snapshot, two sessions in one worktree, one ticket in two
// sessions, and a wait still open; through the CLI in text, Markdown and JSON.

async function night(store?: string): Promise<void> {
  const repo = gitRepo();
  const env = lanesEnv();
  if (store) env['LANES_STORE'] = store;
  delete env['COLUMNS'];
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  writeFileSync(join(repo, 'app.ts'), 'v1\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');
  const me = String(process.pid);
  const start = async (args: string[], pid = me) => {
    const r = await lanes(['start', '--json', '--pid', pid, ...args], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { id: string; worktree: string | null };
  };
  const as = (s: { id: string; worktree: string | null }) => ({
    env: { ...env, LANES_SESSION: s.id },
    cwd: s.worktree ?? repo,
  });

  // alpha lands SEAT-1 from its own worktree.
  const alpha = await start(['--worktree', '--ticket', 'SEAT-1', '--label', 'alpha']);
  writeFileSync(join(alpha.worktree!, 'app.ts'), 'v2\n');
  assert.equal((await lanes(['commit', '-m', 'v2', '--', 'app.ts'], as(alpha))).code, 0);
  const landed = await lanes(['land'], as(alpha));
  assert.equal(landed.code, 0, landed.stderr);
  // beta and delta (and epsilon below) share the main worktree; beta is refused alpha's ticket.
  const beta = await start(['--ticket', 'SEAT-2', '--label', 'beta']);
  const delta = await start(['--label', 'delta']);
  assert.equal((await lanes(['claim', 'ticket:SEAT-1'], as(beta))).code, 3);
  // epsilon joins alpha's ticket.
  const epsilon = await start(['--ticket', 'SEAT-1', '--join', '--label', 'epsilon']);
  // gamma works in its own worktree, is snapshotted, edits more, and its owner dies.
  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const gamma = await start(['--worktree', '--ticket', 'SEAT-3', '--label', 'gamma'], pid!);
  writeFileSync(join(gamma.worktree!, 'gamma.txt'), 'saved\n');
  assert.equal((await lanes(['snapshot'], as(gamma))).code, 0);
  writeFileSync(join(gamma.worktree!, 'later.txt'), 'not saved\n');
  owner.proc.kill('SIGKILL');
  await owner.exited;
  // delta waits for a lock alpha holds (held until the report is read).
  assert.equal((await lanes(['claim', 'lock:deploy'], as(alpha))).code, 0);
  const waiter = lanesChild(['claim', 'lock:deploy', '--wait=60s'], as(delta));
  for (let i = 0; i < 100; i++) {
    if (/WAITING SESSION/.test((await lanes(['claims'], { env, cwd: repo })).stdout)) break;
    await new Promise((r) => setTimeout(r, 50));
  }

  const json = await lanes(['report', '--json'], { env, cwd: repo });
  assert.equal(json.code, 0, json.stderr);
  const r = JSON.parse(json.stdout) as NightReport;
  const seat1 = r.tickets.find((t) => t.ticket === 'SEAT-1');
  assert.ok(seat1, 'SEAT-1 has its section');
  assert.equal(seat1.mainWorktree, repo);
  assert.ok(
    seat1.items.some((i) => i.kind === 'landed' && /on main \(ff\)/.test(i.text) && i.session?.label === 'alpha'),
  );
  const seat2 = r.tickets.find((t) => t.ticket === 'SEAT-2')!;
  assert.ok(seat2.items.some((i) => i.kind === 'refused' && /ticket:SEAT-1: held by alpha/.test(i.text)));
  assert.equal(r.counts.landed, 1);
  const died = r.died.find((d) => d.session.id === gamma.id);
  assert.ok(died, 'gamma died');
  assert.equal(died.session.label, 'gamma');
  assert.equal(died.unsavedFiles, 2, 'the snapshotted file and the later one are both uncommitted');
  assert.match(died.restore ?? '', new RegExp(`^cd ${repo.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} && lanes restore `));
  assert.deepEqual(
    r.sharedWorktrees.map((s) => s.sessions.map((x) => x.label).sort()),
    [['beta', 'delta', 'epsilon']],
  );
  assert.deepEqual(
    r.sameTicket.map((s) => [s.ticket, s.sessions.map((x) => x.label).sort()]),
    [['SEAT-1', ['alpha', 'epsilon']]],
  );
  assert.equal(r.waits.length, 1);
  assert.equal(r.waits[0]!.session.label, 'delta');
  assert.deepEqual(
    r.needsYou.map((n) => n.command),
    ['lanes new SEAT-3 --resume', 'lanes start --worktree --ticket T   (give each its own; or lanes doctor)'],
    'the dead session with work, and the shared worktree (a wait of a minute is not yet trouble)',
  );
  void epsilon;

  // The restore command works as printed, from anywhere.
  const bin = tmp('lanes-bin-');
  symlinkSync(CLI, join(bin, 'lanes'));
  const restored = await run('bash', ['-c', died.restore!], {
    env: { ...env, PATH: `${bin}:${env['PATH']}` },
    cwd: '/',
  });
  assert.equal(restored.code, 0, restored.stderr);
  const into = /restored .* into (\S+)/.exec(restored.stdout)?.[1] ?? '';
  assert.ok(existsSync(join(into, 'gamma.txt')), `restored into ${into}: ${restored.stdout}`);

  // Text: the needs-you list first, labels beside ids, within 80 columns.
  const text = (await lanes(['report'], { env, cwd: repo })).stdout;
  assert.match(text, /^lanes report: [\s\S]*?\n\nNeeds you \(2\)\n {2}• gamma \(SEAT-3; s-\S+\) died/);
  for (const l of text.split('\n')) assert.ok(stringWidth(l) <= 80, `over 80 columns: ${l}`);
  const md = (await lanes(['report', '--markdown'], { env, cwd: repo })).stdout;
  assert.match(md, /^# lanes report: /);
  assert.match(md, /^## Ticket SEAT-1 in /m);
  assert.match(md, /^- .*landed \(alpha\)/m);

  // --since-last: after the text report was read, only what came since.
  assert.equal((await lanes(['release', 'lock:deploy'], as(alpha))).code, 0);
  assert.equal((await waiter.exited).code, 0);
  const next = JSON.parse(
    (await lanes(['report', '--since-last', '--json'], { env, cwd: repo })).stdout,
  ) as NightReport;
  assert.ok(next.afterSeq !== null && next.afterSeq > 0, 'starts after the last report read');
  assert.equal(next.counts.landed, 0, 'the land was in the report already read');
  const marks = JSON.parse(readFileSync(join(env['LANES_HOME']!, 'report-read.json'), 'utf8')) as Record<
    string,
    number
  >;
  assert.equal(Object.values(marks)[0], next.afterSeq);
  // Usage errors are exit 2.
  assert.equal((await lanes(['report', '--since', '2h', '--since-last'], { env, cwd: repo })).code, 2);
  assert.equal((await lanes(['report', '--since', 'yesterday'], { env, cwd: repo })).code, 2);
}

const title =
  'lanes report: what landed, was refused, died (with a restore that works from the main worktree), collided, waits, and what needs you';
test(`${title} (SQLite)`, () => night());
test(`${title} (PostgreSQL)`, { skip: PG_SKIP }, async () => {
  const pg = pgSchemaUrl();
  try {
    await night(pg.url);
  } finally {
    await pg.drop();
  }
});

test('of each kind of a ticket the latest five are shown, the rest counted with the lanes log command that lists them', () => {
  const who = {
    id: 's-1',
    label: 'alpha',
    agent: null,
    ticket: 'SEAT-9',
    host: 'h',
    parent: null,
    state: 'live' as const,
  };
  const at = Date.UTC(2026, 11, 1, 2, 0);
  const items = Array.from({ length: 7 }, (_, n) => ({
    kind: 'refused' as const,
    at: at + n * 60_000,
    seq: n + 1,
    journalKind: n % 2 ? 'claim.refuse' : 'commit.refuse',
    session: who,
    subject: `path:src/f${n}.ts`,
    text: `refusal number ${n}`,
  }));
  const report: NightReport = {
    seatsOut: [],
    unreadable: [],
    seatsBilled: [],
    from: at - 12 * 3_600_000,
    afterSeq: null,
    until: at + 3_600_000,
    lastSeq: 7,
    store: '/s.db',
    counts: { sessions: 1, landed: 0, refused: 7, died: 0 },
    needsYou: [],
    review: [],
    tickets: [{ repo: '/r/.git', mainWorktree: '/r', ticket: 'SEAT-9', sessions: [who], items }],
    died: [],
    finished: [],
    sharedWorktrees: [],
    sameTicket: [],
    waits: [],
    attention: [],
    notifyFailing: [],
  };
  const text = renderReport(report, { markdown: false, width: 120 });
  assert.deepEqual(
    [...text.matchAll(/refusal number (\d)/g)].map((m) => m[1]),
    ['2', '3', '4', '5', '6'],
    'the latest five',
  );
  assert.match(
    text,
    /… 2 more refused\n {6}lanes log --since 13h --ticket SEAT-9 --kind commit\.refuse --kind claim\.refuse\n/,
  );
});
