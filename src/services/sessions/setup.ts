import { spawn } from 'node:child_process';
import { LanesError } from '../../core/errors.js';
import type { LanesConfig } from '../../core/config.js';
import type { SessionRecord, Store } from '../../store/types.js';
import { loadConfig } from '../config.js';
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
): Promise<SessionCommandResult> {
  return new Promise((resolve) => {
    let output = '';
    const keep = (d: Buffer) => {
      output = (output + d.toString('utf8')).slice(-KEEP);
    };
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, code: null, output, why: `could not run sh: ${e.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ ok: true, code, output, why: null });
      const why = signal
        ? `killed after ${Math.round(timeoutMs / 1000)} s ([session] timeout)`
        : `exited with code ${code}`;
      resolve({ ok: false, code, output, why });
    });
  });
}

/** The environment a session's own commands get (what `lanes exec` gives them). */
export type EnvironmentOf = (session: SessionRecord) => Promise<Record<string, string>>;

export function environmentFor(
  ctx: LanesContext,
  deps: Parameters<typeof sessionEnvironment>[1],
  env: Record<string, string | undefined>,
): EnvironmentOf {
  return async (s) => {
    const e = await sessionEnvironment(ctx, deps, s, await loadConfig(ctx, s.worktree), env);
    const kept = Object.entries(env).filter(([k, v]) => v !== undefined && !e.stripped.includes(k));
    return { ...(Object.fromEntries(kept) as Record<string, string>), ...e.vars };
  };
}

/**
 * Runs `[session] setup` in a new session's worktree. When it fails nothing stays behind: the
 * session is ended, its claims released and its new worktree and branch removed, and the error
 * carries the command's output.
 */
export async function setUp(
  session: SessionRecord,
  config: LanesConfig,
  environmentOf: EnvironmentOf,
  undo: (reason: string) => Promise<unknown>,
): Promise<void> {
  const command = config.session.setup;
  if (!command || !session.worktree) return;
  let r: SessionCommandResult;
  try {
    r = await runSessionCommand(command, session.worktree, await environmentOf(session), config.session.timeoutMs);
  } catch (e) {
    r = { ok: false, code: null, output: '', why: (e as Error).message };
  }
  if (r.ok) return;
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

/**
 * Ends a session with `[session] teardown` of its worktree's lanes.toml run before (`first`) or
 * after the end: a session whose end may not happen (gc judged it dead; it may have come back) is
 * torn down only once it has ended.
 */
export async function withTeardown<T extends { changed: boolean }>(
  ctx: LanesContext,
  store: Store,
  id: string,
  environmentOf: EnvironmentOf,
  first: boolean,
  endIt: () => Promise<T>,
): Promise<T> {
  const s = await store.getSession(id).catch(() => null);
  const config = s?.worktree && s.endedAt === null ? await loadConfig(ctx, s.worktree).catch(() => null) : null;
  if (!s || !config?.session.teardown) return endIt();
  if (first) await tearDown(ctx, s, config, environmentOf);
  const r = await endIt();
  if (!first && !r.changed) await tearDown(ctx, { ...s, endedAt: null }, config, environmentOf);
  return r;
}

/** Runs `[session] teardown` as a session ends; a failure is journaled and the end goes on. */
export async function tearDown(
  ctx: LanesContext,
  session: SessionRecord,
  config: LanesConfig,
  environmentOf: EnvironmentOf,
): Promise<SessionCommandResult | null> {
  const command = config.session.teardown;
  if (!command || !session.worktree || session.endedAt !== null) return null;
  let r: SessionCommandResult;
  try {
    r = await runSessionCommand(command, session.worktree, await environmentOf(session), config.session.timeoutMs);
  } catch (e) {
    r = { ok: false, code: null, output: '', why: (e as Error).message };
  }
  if (!r.ok)
    await ctx.journal.record({
      kind: 'teardown.fail',
      subject: session.id,
      session: session.id,
      repo: session.repo,
      ticket: session.ticket,
      details: { command, code: r.code, why: r.why, output: r.output.slice(-2000) },
    });
  return r;
}
