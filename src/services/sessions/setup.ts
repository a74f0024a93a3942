import { spawn } from 'node:child_process';
import { LanesError } from '../../core/errors.js';
import type { SessionRecord, SetupState, Store } from '../../store/types.js';
import { unchanged } from '../../store/shared/rows.js';
import { mainWorktreeOf } from '../../git/main-worktree.js';
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.js';
import type { LoadedConfig } from '../config.js';
import { allowCommand, blockedBy, blockedError } from '../trust/gate.js';
import { sessionEnvironment } from '../runtime/runtime-env.js';
import type { LanesContext } from '../context.js';

// `[session] setup` and `teardown` of lanes.toml: a shell command run in the session's worktree
// with its environment (the inherited one, less what [env] strip removes, plus the session's
// variables: LANES_SESSION, its ports, its templated names), bounded by `timeout`.

const KEEP = 8000;

export interface SessionCommandResult {
  ok: boolean;
  /** Exit code, or null when killed (the timeout) or not started. */
  code: number | null;
  /** The end of what it printed (stdout and stderr, interleaved). */
  output: string;
  why: string | null;
}

export function runSessionCommand(
  command: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
  /** A process group of its own, killed whole at the timeout (and when lanes exits): `[land] check`. */
  group?: { setting: string },
): Promise<SessionCommandResult> {
  return new Promise((resolve) => {
    let output = '';
    const keep = (d: Buffer) => {
      output = (output + d.toString('utf8')).slice(-KEEP);
    };
    const child = spawn('sh', ['-c', command], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(group ? { detached: true } : {}),
    });
    // A grandchild (a test runner's workers) holds the pipes past sh: the whole group goes.
    const killAll = () => {
      try {
        if (group && child.pid) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // gone already
      }
    };
    if (group) process.once('exit', killAll);
    const timer = setTimeout(killAll, timeoutMs);
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, code: null, output, why: `could not run sh: ${e.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (group) process.removeListener('exit', killAll);
      if (code === 0) return resolve({ ok: true, code, output, why: null });
      const why = signal
        ? `killed after ${Math.round(timeoutMs / 1000)} s (${group?.setting ?? '[session] timeout'})`
        : `exited with code ${code}`;
      resolve({ ok: false, code, output, why });
    });
  });
}

/** The environment a session's own commands get (what `lanes exec` gives them); `leaseNew` false: only the ports it had. */
export type EnvironmentOf = (session: SessionRecord, leaseNew?: boolean) => Promise<Record<string, string>>;

export function environmentFor(
  ctx: LanesContext,
  deps: Parameters<typeof sessionEnvironment>[1],
  env: Record<string, string | undefined>,
): EnvironmentOf {
  return async (s, leaseNew = true) => {
    const e = await sessionEnvironment(ctx, deps, s, await loadConfig(ctx, s.worktree), env, leaseNew);
    const kept = Object.entries(env).filter(([k, v]) => v !== undefined && !e.stripped.includes(k));
    return { ...(Object.fromEntries(kept) as Record<string, string>), ...e.vars };
  };
}

/**
 * Runs `[session] setup` in a new session's worktree. When it fails nothing stays behind: the
 * session is ended, its claims released and its new worktree and branch removed, and the error
 * carries the command's output. When it ran, the session's teardown is due (setup state `done`):
 * exactly once, whoever ends the session.
 */
export async function setUp(
  ctx: LanesContext,
  session: SessionRecord,
  config: LoadedConfig,
  environmentOf: EnvironmentOf,
  undo: (reason: string) => Promise<unknown>,
): Promise<void> {
  const command = config.session.setup;
  if (!command || !session.worktree) return;
  // The start checked the file (start-session.ts); this is the text that runs, checked again.
  const blocked = blockedBy(ctx.env, config.repoFile, ['setup']);
  if (blocked) {
    await undo('[session] setup not allowed').catch(() => undefined);
    throw blockedError(blocked, 'the [session] setup');
  }
  let r: SessionCommandResult;
  try {
    r = await runSessionCommand(command, session.worktree, await environmentOf(session), config.session.timeoutMs);
  } catch (e) {
    r = { ok: false, code: null, output: '', why: (e as Error).message };
  }
  if (r.ok) {
    await ctx.store.setSetupState(session.id, null, 'done');
    return;
  }
  // The undo may keep the worktree (a process the setup left running works in it): then say so.
  const kept = await undo(`[session] setup ${r.why}`).then(
    () => null,
    (e: unknown) => (e as Error).message.split('\n')[0] ?? String(e),
  );
  throw new LanesError('E_SETUP', `[session] setup ${r.why}: ${command}${r.output ? `\n${r.output.trimEnd()}` : ''}`, {
    hint: kept
      ? `fix the command in lanes.toml ([session] setup) and start again; the session ended and its claims were released, but ${kept} (\`lanes gc --worktrees\` removes it once nothing works there)`
      : 'fix the command in lanes.toml ([session] setup) and start again; nothing was left behind (the session ended, its claims released, its new worktree and branch removed)',
    details: { command, code: r.code, output: r.output },
  });
}

/** What a session's teardown did, for the command that ended it and the report. */
export interface TeardownOutcome {
  ok: boolean;
  command: string | null;
  why: string | null;
  /** It did not run: this lanes.toml is not allowed (lanes allow). */
  blocked?: string;
}

/**
 * Ends a session, its `[session] teardown` run first when its setup ran (setup state `done`), while
 * it still holds its ports; whoever ends it (lanes end, stop, gc, the reap, the page, a wrapper).
 * A session gc judged dead (`unchangedSince`) is torn down only while it is still as judged. The
 * teardown's failure is journaled, said, and the end goes on (`lanes teardown S` runs it again).
 */
export async function withTeardown<T extends { changed: boolean }>(
  ctx: LanesContext,
  store: Store,
  id: string,
  environmentOf: EnvironmentOf,
  unchangedSince: { lastSeenAt: number; owner: SessionRecord['owner'] } | undefined,
  endIt: () => Promise<T>,
): Promise<T & { teardown: TeardownOutcome | null }> {
  const s = await store.getSession(id).catch(() => null);
  const due = s && s.endedAt === null && s.setupState === 'done' && (!unchangedSince || unchanged(s, unchangedSince));
  const teardown = due ? await tearDown(ctx, s, environmentOf, 'done') : null;
  return { ...(await endIt()), teardown };
}

/**
 * Runs a session's `[session] teardown` once: the state moves `from` (done; failed or tearing for
 * `lanes teardown`) to tearing, then torn or failed, so two enders never both run it. With the
 * session's environment (its templated names, the ports it had), in its worktree, else the
 * repository's main worktree when its worktree is gone. Null when someone else is tearing it down.
 */
export async function tearDown(
  ctx: LanesContext,
  session: SessionRecord,
  environmentOf: EnvironmentOf,
  from: SetupState,
): Promise<TeardownOutcome | null> {
  if (!(await ctx.store.setSetupState(session.id, from, 'tearing'))) return null;
  const where =
    session.worktree && existsSync(session.worktree) ? session.worktree : (mainWorktreeOf(session.repo) ?? null);
  const config = where ? await loadConfig(ctx, where).catch(() => null) : null;
  const command = config?.session.teardown ?? null;
  let r: SessionCommandResult;
  // Its text now, which an agent may have changed in its worktree: allowed as it is, or not run.
  const blocked = config ? blockedBy(ctx.env, config.repoFile, ['teardown']) : null;
  if (!where) r = { ok: false, code: null, output: '', why: 'its worktree and repository are gone' };
  else if (!config) r = { ok: false, code: null, output: '', why: 'its lanes.toml could not be read' };
  else if (!command) r = { ok: true, code: 0, output: '', why: null };
  else if (blocked)
    r = {
      ok: false,
      code: null,
      output: '',
      why: `not run: ${blocked.file} ${blocked.state === 'denied' ? 'was denied' : 'is not allowed'} (sha256 ${blocked.sha256.slice(0, 12)}); read it, run \`${allowCommand(blocked)}\`, then \`lanes teardown ${session.id}\``,
    };
  else
    try {
      r = await runSessionCommand(command, where, await environmentOf(session, false), config.session.timeoutMs);
    } catch (e) {
      r = { ok: false, code: null, output: '', why: (e as Error).message };
    }
  await ctx.store.setSetupState(session.id, 'tearing', r.ok ? 'torn' : 'failed');
  if (command || !r.ok)
    await ctx.journal.record({
      kind: r.ok ? 'teardown.done' : 'teardown.fail',
      subject: session.id,
      session: session.id,
      repo: session.repo,
      ticket: session.ticket,
      details: {
        command,
        code: r.code,
        why: r.why,
        output: r.output.slice(-2000),
        ...(blocked && command ? { blocked: blocked.file } : {}),
      },
    });
  return { ok: r.ok, command, why: r.why, ...(blocked && command ? { blocked: blocked.file } : {}) };
}

/** `lanes teardown S`: a teardown that failed or was killed while it ran, or an ended session's still due. */
export function tearDownAgain(
  ctx: LanesContext,
  s: SessionRecord,
  environmentOf: EnvironmentOf,
): Promise<TeardownOutcome | null> {
  const from = s.setupState;
  if (from === 'failed' || from === 'tearing' || (from === 'done' && s.endedAt !== null))
    return tearDown(ctx, s, environmentOf, from);
  return Promise.resolve(null);
}
