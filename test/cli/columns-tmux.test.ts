import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { CLI, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { needs } from '../helpers/needs.js';
import { tmuxMissing } from '../helpers/tmux.js';

// Issue 47, item 5: output that fits and keeps what matters, read off a real terminal (a tmux pane,
// colours on) 60, 80 and 120 columns wide. A session in its worktree holds a ticket, a path and
// four ports (the ports sort first by key); another's worktree has unsaved work after it ended.
// No line may be wider than the pane (the pane would fold it: capture-pane -J joins it back), and
// what a person acts on is whole: the ticket and path claims in ls, the driver in store status,
// every doctor finding and gc note, the error's fix line.

const COMMANDS: Record<string, string[]> = {
  ls: ['ls'],
  claims: ['claims'],
  store: ['store', 'status'],
  doctor: ['doctor'],
  gc: ['gc', '--worktrees', '--dry-run'],
  error: ['start', '--ticket', 'SHOP-1'],
};

/** A quoted word for sh. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs every command in a pane `width` columns wide; each one's screen lines, folded lines joined back. */
function screens(env: Record<string, string>, cwd: string, width: number): Record<string, string[]> {
  const script = join(tmp('lanes-cols-'), 'run.sh');
  writeFileSync(
    script,
    [
      ...Object.entries(COMMANDS).map(
        ([name, args]) =>
          `printf '@@ %s\\n' ${name}; ${q(process.execPath)} ${q(CLI)} ${args.map(q).join(' ')}; printf '@@ end %s\\n' $?`,
      ),
      // The explicit signal the test waits for; the pane stays to be read.
      `tmux wait-for -S cols-${width}`,
      'exec sleep 600',
    ].join('\n'),
  );
  const tmux = (...args: string[]) => execFileSync('tmux', args, { env, encoding: 'utf8', timeout: 60_000 });
  tmux('new-session', '-d', '-x', String(width), '-y', '300', '-s', `cols-${width}`, '-c', cwd, '--', 'sh', script);
  tmux('wait-for', `cols-${width}`);
  const screen = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', `cols-${width}:`);
  tmux('kill-session', '-t', `cols-${width}`);
  const out: Record<string, string[]> = {};
  for (const [, name, body] of screen.matchAll(/^@@ (\w+)\n([\s\S]*?)^@@ end \d+$/gm))
    out[name!] = body!.trimEnd().split('\n');
  return out;
}

/** A message wrapped at words (its later lines indented) read as the one line it was. */
const joined = (lines: string[]) => lines.map((l, i) => (i === 0 ? l : l.trim())).join(' ');

test(
  'at 60, 80 and 120 columns in a real terminal, tables and messages keep what matters whole',
  { skip: needs('tmux', tmuxMissing) },
  async () => {
    const env = lanesEnv();
    env['TMUX_TMPDIR'] = tmp('lanes-tmux-');
    // Colours on, as a person sees it; the pane's own width, not an inherited COLUMNS.
    for (const k of ['TMUX', 'NO_COLOR', 'COLUMNS', 'LINES']) delete env[k];
    const repo = join(tmp(), 'shop');
    mkdirSync(repo);
    gitRepo(repo);
    const opts = { env: { ...env, NO_COLOR: '1' }, cwd: repo };
    const started = await lanes(
      ['new', 'SHOP-1', '--label', 'cart', '--background', '--json', '--', 'sleep', '600'],
      opts,
    );
    assert.equal(started.code, 0, started.stderr);
    const cart = (JSON.parse(started.stdout) as { session: string }).session;
    const as = { ...opts, env: { ...opts.env, LANES_SESSION: cart } };
    const ports: string[] = [];
    for (const name of ['web', 'api', 'db', 'cache']) ports.push((await lanes(['port', name], as)).stdout.trim());
    assert.equal((await lanes(['claim', 'path:src/billing/'], as)).code, 0);
    // An ended session's worktree with work written after its end: doctor warns, gc would remove it.
    const old = JSON.parse(
      (await lanes(['start', '--worktree', '--ticket', 'SHOP-2', '--pid', String(process.pid), '--json'], opts)).stdout,
    ) as { id: string; worktree: string };
    assert.equal((await lanes(['end', '--force', old.id], opts)).code, 0);
    writeFileSync(join(old.worktree, 'after-the-end.txt'), 'unsaved\n');
    const findings = (JSON.parse((await lanes(['doctor', '--json'], opts)).stdout) as { findings: Finding[] }).findings;
    assert.ok(findings.some((f) => f.kind === 'unsaved-worktree'));
    const refused = JSON.parse((await lanes(['start', '--ticket', 'SHOP-1', '--json'], opts)).stdout) as {
      error: { message: string; hint: string };
    };

    // Its agent (sleep) stopped however the checks end, not left running its 600 s: here, since
    // the temporary directories it runs in go with the test's own after() hooks.
    // One tmux server for the three widths: killing a width's session would otherwise end the
    // server while the next width's new-session connects ("server exited unexpectedly", seen in CI).
    execFileSync('tmux', ['new-session', '-d', '-s', 'cols-keep', '--', 'sleep', '600'], { env });
    try {
      for (const width of [60, 80, 120]) checkAt(width, screens(env, repo, width), { cart, ports, findings, refused });
    } finally {
      spawnSync('tmux', ['kill-server'], { env });
      await lanes(['stop', cart, '--no-save'], opts);
    }
  },
);

/** What one width's screens must keep whole. */
function checkAt(
  width: number,
  s: Record<string, string[]>,
  {
    cart,
    ports,
    findings,
    refused,
  }: { cart: string; ports: string[]; findings: Finding[]; refused: { error: { hint: string } } },
): void {
  const at = `at ${width}`;
  for (const [name, lines] of Object.entries(s))
    for (const l of lines) assert.ok(stringWidth(l) <= width, `${name} ${at}: a line wider than the pane: ${l}`);
  assert.deepEqual(Object.keys(s), Object.keys(COMMANDS), `every command ran ${at}`);

  // ls: the session's row (its first line and those under it) shows its ticket and path claims
  // whole, and its worktree by the part a person knows it by.
  const row = rowOf(s['ls']!, cart);
  const words = row.join(' ').split(/\s+/);
  assert.ok(words.includes('ticket:SHOP-1') && words.includes('path:src/billing/'), `ls ${at}:\n${row.join('\n')}`);
  assert.ok(
    words.some((w) => (width >= 80 ? /(^|\/)shop\.lanes\/shop-1$/ : /\/shop-1$/).test(w)),
    `ls ${at} shows the worktree's tail:\n${row.join('\n')}`,
  );
  // claims: every resource whole.
  const claimed = s['claims']!.join('\n').split(/\s+/);
  for (const r of ['ticket:SHOP-1', 'path:src/billing/', ...ports.map((p) => `port:${p}`)])
    assert.ok(claimed.includes(r), `claims ${at}: ${r}\n${s['claims']!.join('\n')}`);
  // store status: the driver whole.
  assert.match(s['store']!.join('\n'), /^backend +sqlite \((node:sqlite|better-sqlite3)\)$/m, `store status ${at}`);
  // doctor: each finding whole once its lines are read as one.
  const doctor = paragraphs(s['doctor']!);
  for (const f of findings)
    assert.ok(
      doctor.some((p) => p.endsWith(`${f.kind}: ${f.message}`)),
      `doctor ${at}: ${f.kind}: ${f.message}\n${s['doctor']!.join('\n')}`,
    );
  // gc: what it would do to which worktree and what it holds unsaved; the note on the kept one whole.
  const gc = s['gc']!;
  assert.ok(
    gc.some((l) => /^would remove +\.\.\/shop\.lanes\/shop-2 .*1 file\(s\)/.test(l)),
    `gc ${at}:\n${gc.join('\n')}`,
  );
  assert.ok(
    paragraphs(gc).includes(`• ../shop.lanes/shop-1: live session ${cart} (cart) uses it`),
    `gc ${at}: the note whole\n${gc.join('\n')}`,
  );
  // As root here, processes of a PID namespace not ours cannot be read: that line whole when said.
  for (const p of paragraphs(gc).filter((x) => /^\d+ process\(es\)/.test(x)))
    assert.match(p, /: a worktree only they use was not seen as used$/, `gc ${at}`);
  // The error: its message, then its fix line, each complete when its lines are joined.
  const error = s['error']!;
  const fix = error.findIndex((l) => l.startsWith('  fix: '));
  assert.ok(fix > 0, `error ${at}:\n${error.join('\n')}`);
  assert.match(
    joined(error.slice(0, fix)),
    /^lanes: error: ticket SHOP-1 is held by session .* no session was started$/,
  );
  assert.equal(joined(error.slice(fix)), `  fix: ${refused.error.hint}`, `error ${at}:\n${error.join('\n')}`);
  assert.ok(error.length > 2, `the fix line wrapped ${at}, not cut`);
}

interface Finding {
  kind: string;
  message: string;
}

/** A table row's lines: the one starting with `id`, then those under it (blank in the first column). */
function rowOf(lines: string[], id: string): string[] {
  const at = lines.findIndex((l) => l.startsWith(id));
  assert.ok(at >= 0, `a row for ${id}:\n${lines.join('\n')}`);
  const row = [lines[at]!];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith(' ')) break;
    row.push(l);
  }
  return row;
}

/** Lines read as paragraphs: a line starting with a space continues the one before. */
function paragraphs(lines: string[]): string[] {
  const out: string[] = [];
  for (const l of lines)
    if (/^\s/.test(l) && out.length) out[out.length - 1] += ` ${l.trim()}`;
    else out.push(l);
  return out;
}
