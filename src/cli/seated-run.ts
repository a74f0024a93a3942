import { resumeCommand } from '../core/agent-logins.js';
import { carryConversation, hasConversation, loginDir } from '../core/carry-conversation.js';
import { tmpdir } from 'node:os';
import { agentLogFor } from './agent-log.js';
import { prepareStart } from './agent-start.js';
import { start } from './agent-child.js';
import type { RunResult } from './agent-child.js';
import type { Lanes, SeatLease } from '../index.js';
import { watchRecord } from './seat-record.js';
import type { RecordWatch } from './seat-record.js';
import { utcMinute } from '../core/duration.js';

// The agent of a session lanes runs (`lanes new`'s wrapper, `lanes start -- CMD`), on its seat.
// When its seat runs out (its hooks say so: services/seats/exhaust.ts) the agent is stopped (SIGTERM,
// then SIGKILL after 15 s) and [seats] on_exhausted decides: next, started again on the next free
// seat of the pool, resuming its conversation where the agent can; wait, until a seat of the pool
// frees or resets (never an exhausted one before its reset, never a billed-per-call login); stop,
// the session ends. Without a seat it is a plain run: CMD once, its exit code passed through.

const WATCH_MS = 1000;
const GRACE_MS = 15_000;
/** The agent's record (a Codex rollout) is read every this many checks while it runs. */
const RECORD_EVERY = 5;

export type { RunResult } from './agent-child.js';

const when = utcMinute;

export async function runOnSeat(
  lanes: Lanes,
  id: string,
  cmd: string[],
  cwd: string,
  say: (line: string) => void,
): Promise<RunResult> {
  let args = cmd;
  // The conversation being resumed, as the agent's own record names it (Codex: its thread id).
  let conversation: string | null = null;
  for (;;) {
    const lease = await lanes.seats.leaseOf(id);
    const env = await agentEnv(lanes, id);
    const started = await lanes.now();
    const tmp = env['TMPDIR'] || tmpdir();
    // The log the agent is asked to keep where lanes reads it (Gemini CLI's debug log: a quota it waits out).
    const log = lease ? agentLogFor(lease.seat.agent, env, tmp, id) : null;
    const record: RecordWatch | null = lease
      ? watchRecord(lanes, id, lease, conversation, tmp, cwd, log?.path ?? null)
      : null;
    // The task goes with the first start only (a move to the next seat resumes its conversation).
    const how = await prepareStart(lanes, id, args, cwd, env, args === cmd);
    const run = start(how.cmd, cwd, how.env, how.stdin);
    const ranOut: Promise<RanOut | null> =
      lease && record ? watchSeat(lanes, id, lease, started, run, record) : Promise.resolve(null);
    const result = await run.done;
    run.stopWatching();
    const out: RanOut | null = await ranOut.finally(() => log?.end());
    conversation = record?.conversation ?? conversation;
    if (!out || !lease) return result;
    const seat = out.seat;
    const config = await lanes.config(cwd).catch(() => null);
    const policy = config?.seats.pools[seat.pool]?.onExhausted ?? config?.seats.onExhausted ?? 'next';
    const why = `seat ${seat.name} ran out (${seat.exhaustedWhy ?? 'quota'}) until ${when(seat.exhaustedUntil ?? 0)}`;
    if (policy === 'stop') {
      await lanes.seats.failover(id, { action: 'stop', from: seat.name, why: `${why}; [seats] on_exhausted = stop` });
      say(`lanes: ${why}; stopping the session ([seats] on_exhausted = stop)`);
      return { code: 3, reason: `${why}; stopped ([seats] on_exhausted = stop)` };
    }
    // Off a pay-per-use seat (the person named it), the pool's other pay-per-use seats are candidates
    // too, after its flat ones, only when [seats.pools.NAME] pay_per_use_next says so; off a flat seat, never.
    const billedToo = seat.payPerUse && config?.seats.pools[seat.pool]?.payPerUseNext === true;
    const next = await nextSeat(lanes, id, seat, { command: cmd, billedToo }, why, say);
    if (!next) return { code: 3, reason: `${why}; stopped while waiting for a seat` };
    await lanes.seats.failover(id, { action: 'moved', from: seat.name, to: next.seat.name, why });
    // The agent's own session as its hooks registered it, else its record's (npm's launcher of Codex
    // runs the native binary as its child on a Node without process.execve, 20 among them: the
    // hooks' session is then owned by that child, not by the process lanes started).
    const resumeId: string | null = out.agentSession ?? conversation;
    const agent = out.agent ?? seat.agent;
    let resumed = resumeId ? resumeCommand(agent, cmd, resumeId) : null;
    const canResume = resumeCommand(agent, cmd, 'ID') !== null;
    conversation = resumeId;
    // The conversation is in the old login's directory: the new login gets a copy to resume.
    const from = loginDir(seat.agent, seat.env);
    const to = loginDir(seat.agent, next.seat.env);
    if (resumed && resumeId) carryConversation(seat.agent, resumeId, from, to);
    // A resume of a conversation the new login lacks fails at once (Gemini CLI exits on "Error
    // resuming session", Claude Code and Codex find no such conversation), and one whose id no hook
    // and no record named cannot be asked for: the agent starts afresh there with the command it was
    // given, which may redo work already done: said on stderr, never silently.
    // Two seats of one login directory (pay-per-use keys use the default one) share the conversation.
    if (canResume && (!resumeId || (from !== to && hasConversation(seat.agent, resumeId, to) === false))) {
      const what = resumeId
        ? `conversation ${resumeId} could not be carried to seat ${next.seat.name}'s login`
        : record?.notGuessed
          ? `its hooks did not name it, and its login's record cannot tell: ${record.notGuessed}`
          : 'neither its hooks nor its record named it';
      say(`lanes: WARNING: cannot resume the agent's conversation (${what}); it starts afresh with its first command`);
      resumed = null;
      conversation = null;
    }
    say(`lanes: ${why}; ${resumed ? 'resuming' : 'starting'} the agent on seat ${next.seat.name} (slot ${next.slot})`);
    args = resumed ?? cmd;
  }
}

/**
 * What the agent of a run gets: exactly what `lanes exec` gives the session's commands (its ports,
 * templated names, private TMPDIR, [env] strip and, on a seat, the seat's login without billed-per-call
 * variables), and LANES_RUN: the agent's own hooks then act as this session (one agent, one session).
 */
async function agentEnv(lanes: Lanes, id: string): Promise<NodeJS.ProcessEnv> {
  const inherited = { ...process.env, LANES_SESSION: id };
  const e = await lanes.environment({ session: id, inherited });
  const env: NodeJS.ProcessEnv = { ...inherited };
  for (const k of e.stripped) delete env[k];
  return { ...env, ...e.vars, LANES_RUN: id };
}

interface RanOut {
  seat: SeatLease['seat'];
  /** The agent's own session (its hooks registered it, owned by the agent process): what to resume. */
  agentSession: string | null;
  agent: string | null;
}

/**
 * Resolves when the seat was exhausted after the agent started (the agent is then stopped), or null
 * at its exit. Checked each second, and once more when the agent exits: a headless agent (`claude
 * -p`, `codex exec`) exits on the error itself, its hooks (SessionEnd) having said so just before,
 * or its record saying so (read every RECORD_EVERY checks, and at the exit first).
 */
function watchSeat(
  lanes: Lanes,
  id: string,
  lease: SeatLease,
  started: number,
  run: ReturnType<typeof start>,
  record: RecordWatch,
): Promise<RanOut | null> {
  let out: RanOut | null = null;
  let checking: Promise<void> = Promise.resolve();
  let ticks = 0;
  const check = (exited: boolean) =>
    (checking = checking
      .then(async () => {
        if (out) return;
        const looked = exited || ++ticks % RECORD_EVERY === 0;
        if (looked) await record.look();
        const now = await lanes.seats.leaseOf(id).catch(() => null);
        const s = now?.seat;
        if (
          s &&
          s.name === lease.seat.name &&
          s.exhaustedAt !== null &&
          s.exhaustedAt >= started &&
          (s.exhaustedUntil ?? 0) > (await lanes.now())
        ) {
          // Its hooks said so before the record was read: the record still names the conversation
          // to resume (Codex under npm's launcher on Node 20: its hooks' session is not the child's).
          if (!looked && !record.conversation) await record.look();
          out = { seat: s, ...(await agentOf(lanes, id, run.child.pid ?? 0).catch(() => NO_AGENT)) };
          if (exited) return;
          run.child.kill('SIGTERM');
          setTimeout(() => run.child.kill('SIGKILL'), GRACE_MS).unref();
        }
      })
      .catch(() => undefined));
  let busy = false;
  run.setWatch(
    setInterval(() => {
      if (busy) return;
      busy = true;
      void check(false).finally(() => (busy = false));
    }, WATCH_MS),
  );
  return run.done.then(async () => {
    await check(true);
    return out;
  });
}

const NO_AGENT = { agentSession: null, agent: null };

/** The agent's own session: the one its hooks bound to the run, else the one its process owns (registered beside it). */
async function agentOf(
  lanes: Lanes,
  id: string,
  pid: number,
): Promise<{ agentSession: string | null; agent: string | null }> {
  const me = await lanes.sessions.get(id);
  // Its hooks bound the agent's own session to this run (one agent, one session).
  const at = me.conversation?.indexOf(':') ?? -1;
  if (me.conversation && at > 0)
    return { agentSession: me.conversation.slice(at + 1), agent: me.conversation.slice(0, at) };
  const theirs = (await lanes.sessions.list({ all: true }))
    .filter((s) => s.id !== id && s.owner.pid === pid && s.owner.host === me.owner.host && s.createdAt >= me.createdAt)
    .sort((a, b) => Number(b.state === 'live') - Number(a.state === 'live') || b.createdAt - a.createdAt)[0];
  const agent = theirs?.agent ?? me.agent;
  const own = theirs && agent ? theirs.id.slice(agent.length + 1) : null;
  return { agentSession: own, agent };
}

/**
 * The next seat of the pool: a free one at once (`next` and `wait` alike: a seat that is free has
 * freed), else as soon as one frees or resets, checking every 15 s and saying so each minute, the
 * wait journaled with why none could be had. Null when the wait was ended (SIGINT/SIGTERM).
 */
async function nextSeat(
  lanes: Lanes,
  id: string,
  seat: SeatLease['seat'],
  { command, billedToo }: { command: readonly string[]; billedToo: boolean },
  why: string,
  say: (line: string) => void,
): Promise<SeatLease | null> {
  const { pool, name: from } = seat;
  // Why the last try found none (E_NO_SEAT names each seat: in use, out until, or a billed key in
  // its files that only a person can take out), said with every wait line, not swallowed.
  let none = '';
  const attempt = () =>
    lanes.seats.lease(id, 'auto', { pool, command, billedToo }).catch((e: unknown) => {
      none = e instanceof Error ? e.message : String(e);
      return null;
    });
  const got = await attempt();
  if (got) return got;
  const reason = () => (none ? ` (${none})` : '');
  await lanes.seats.failover(id, {
    action: 'wait',
    from,
    why: `waiting for a free seat of pool ${pool}: ${why}${reason()}`,
  });
  let stopped = false;
  let wake: () => void = () => undefined;
  const stop = () => {
    stopped = true;
    wake();
  };
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, stop);
  try {
    for (let told = 0; !stopped;) {
      const got = await attempt();
      if (got) return got;
      if (Date.now() - told >= 60_000) {
        const seats = (await lanes.seats.list()).filter((s) => s.pool === pool && (billedToo || !s.payPerUse));
        const resets = seats.map((s) => s.until).filter((u): u is number => u !== null);
        say(
          `lanes: ${why}; waiting for a free seat of pool ${pool}${resets.length ? ` (the first resets ${when(Math.min(...resets))})` : ''}${reason()}; Ctrl-C or lanes stop ends the session`,
        );
        told = Date.now();
      }
      await new Promise<void>((r) => {
        wake = r;
        // Keeps the wrapper alive while nothing else runs. LANES_SEAT_POLL_MS: how often (tests shorten it).
        setTimeout(r, Number(process.env['LANES_SEAT_POLL_MS']) || 15_000);
      });
    }
    return null;
  } finally {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeListener(s, stop);
  }
}
