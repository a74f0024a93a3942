// `lanes ls --all` and `ls --json` over more sessions than a page (issue 48, item 5): the rows are
// read a page at a time (twice for the table: to measure it, then to draw it), so what the command
// holds is the listing's order and one page. What it prints must be what one table of every row
// would be, subagents under their parents even when a page boundary lies between them.
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HEAD, claimsToFill, fitTo, sessionCells } from '../../src/cli/commands/ls.js';
import { Table } from '../../src/cli/table.js';
import { nested } from '../../src/core/nesting.js';
import { identityOf } from '../../src/core/process-identity.js';
import { openLanes } from '../../src/index.js';
import { openStore } from '../../src/store/open.js';
import type { SessionRecord } from '../../src/store/types.js';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';

const DAY = 86_400_000;

// Up to 5,000 rows are held from the first read (ls.ts HELD_ROWS); 6,000 are read twice.
for (const n of [2600, 6000])
  test(`ls --all over ${n} sessions prints the table one pass over every row would, subagents under parents across pages`, async () => {
    const env: Record<string, string> = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off', COLUMNS: '230' };
    env['LANES_STORE'] = join(env['LANES_HOME']!, 'lanes.db');
    const repo = gitRepo();
    const me = identityOf(process.pid)!;
    const store = await openStore(env['LANES_STORE']);
    const now = await store.now();
    const id = (i: number) => `s-p${String(i).padStart(5, '0')}`;
    // Created days ago (the AGE column reads the same in both listings), out of id order. Subagents:
    // s-p00003's child is created n - 203 sessions later (another page), its grandchild later still;
    // a child whose parent is gone from the store is shown at the top level.
    const parentOf = new Map([
      [id(n - 200), id(3)],
      [id(n - 10), id(n - 200)],
      [id(1500), id(1499)],
      [id(700), 's-gone'],
    ]);
    const sessions: SessionRecord[] = Array.from({ length: n }, (_, i) => {
      const worktree = i % 3 === 0 ? join(repo, '..', `wt-${i % 97}`, 'a-rather-long-directory-name') : null;
      return {
        ...{
          label: i % 5 === 0 ? `label ${i} ünïcødé` : null,
          agent: i % 2 ? 'codex' : 'claude-code',
          repo: join(repo, '.git'),
        },
        ...{ ticket: i % 7 === 0 ? `T-${i}` : null, command: null, id: id(i), worktree, cwd: worktree ?? repo },
        owner: { ...me, startTime: 'gone' },
        createdAt: now - 30 * DAY + i * 60_000 + ((i * 7919) % 1000),
        lastSeenAt: now - 29 * DAY,
        endedAt: i % 4 === 0 ? null : now - 29 * DAY,
        ...{ endReason: i % 4 === 0 ? null : 'done', deadWhy: null, attention: null, terminal: null },
        ...{ conversation: null, conversationPid: null, died: null, setupState: null, envSlug: null },
        ...{ parent: parentOf.get(id(i)) ?? null, task: null },
      };
    });
    const scope = `repo:${join(repo, '.git')}`;
    const claims = sessions
      .filter((x, i) => i % 8 === 0 && x.endedAt === null)
      .flatMap((x, k) =>
        Array.from({ length: 1 + (k % 90) }, (_, j) => ({
          ...{ scope, kind: 'path', name: `src/dir-${k}/file-${j}.ts`, sessionId: x.id, token: 1, acquiredAt: now },
        })),
      );
    await store.load(
      { sessions, claims, fences: claims.map((c) => ({ ...c, lastToken: 1 })), state: [], gates: [] },
      { replace: true },
    );
    await store.close();

    const r = await lanes(['ls', '--all'], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr);
    const lib = await openLanes({ env, cwd: repo, session: null, notice: false });
    try {
      const rows = await lib.sessions.rows({ all: true, claimsShown: claimsToFill(230) });
      const libNow = await lib.now();
      // Without colour, as the command ran (NO_COLOR): this process's colours follow its own
      // environment (picocolors turns them on where $CI is set).
      const expected = stripVTControlCharacters(
        new Table(
          HEAD,
          nested(rows).map((x) => sessionCells(x, libNow, null)),
          fitTo(230),
        ).toString(),
      );
      assert.equal(r.stdout, expected);
      const lines = r.stdout.split('\n');
      assert.ok(lines.every((l) => l.length <= 230));
      // The rows in order (a row's wrapped claims take more lines).
      const order = lines.filter((l) => /^ *(└ )?s-/.test(l)).map((l) => l.trim().replace(/^└ /, '').split(' ')[0]);
      const at = (x: string) => order.indexOf(x);
      assert.equal(at(id(n - 200)), at(id(3)) + 1, 'a child right under its parent, pages apart');
      assert.equal(at(id(n - 10)), at(id(n - 200)) + 1, 'a grandchild under the child');
      assert.ok(lines.some((l) => l.startsWith(`  └ ${id(n - 10)}`)));
      assert.ok(
        lines.some((l) => l.startsWith(id(700))),
        'a child of a session not in the store: at the top level',
      );
      const listed = lines.map((l) => /s-p\d{5}/.exec(l)?.[0]).filter((x) => x !== undefined);
      assert.equal(listed.length, n, 'every session once');

      // --json (open sessions; --all: every one): the same bytes as the whole list written at once,
      // in creation order, every claim of every session.
      for (const all of [false, true]) {
        const j = await lanes(['ls', '--json', ...(all ? ['--all'] : [])], { env, cwd: repo });
        assert.equal(j.code, 0, j.stderr);
        const views = await lib.sessions.list({ all });
        const parsed = JSON.parse(j.stdout) as { id: string; claims: unknown[] }[];
        assert.equal(parsed.length, all ? n : sessions.filter((x) => x.endedAt === null).length);
        assert.deepEqual(
          parsed.map((x) => x.id),
          views.map((x) => x.id),
        );
        assert.equal(j.stdout, `${JSON.stringify(parsed, null, 2)}\n`);
        assert.equal(
          parsed.reduce((k, x) => k + x.claims.length, 0),
          claims.length,
        );
      }
    } finally {
      await lib.close();
    }
  });
