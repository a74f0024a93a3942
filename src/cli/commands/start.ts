import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { callerPid } from '../../core/process-identity.js';
import { printJson } from '../output.js';
import { leaveShellIn } from '../shell-cd.js';
import { ensureWatcher } from '../watcher.js';
import { resolveStore } from '../../index.js';
import { carryHooksInto } from '../carry.js';
import { leaseOrUndo } from '../seated.js';
import { runOnSeat } from '../seated-run.js';
import { endRun } from '../end-run.js';

export const command: CommandSpec = {
  name: 'start',
  summary: 'Register a session and print its id. With `-- CMD`, run CMD as that session and end it when CMD exits.',
  usage:
    'start [--worktree [--base REF] [--cd]] [--ticket T [--join]] [--agent NAME] [--label L] [--seat NAME|auto] [--pid PID] [--json] [-- CMD ARGS…]',
  description: [
    'Without CMD the owner is the process that called lanes (its parent: usually your shell; launchers such as',
    'npx, npm exec and env in between are skipped) or --pid;',
    'the session is live exactly while that process runs (same pid, same start time, same boot).',
    "With CMD, lanes stays as CMD's parent: LANES_SESSION is set for CMD, signals are forwarded, CMD's",
    'exit code is passed through (a signal death as 128+N, a missing command as 127), and the session ends.',
  ].join('\n'),
  options: {
    ticket: { type: 'string', arg: 'T', help: 'the ticket this session works on' },
    agent: { type: 'string', arg: 'NAME', help: 'the agent running it (claude-code, codex, …)' },
    label: { type: 'string', arg: 'L', help: 'a human name for the session' },
    pid: { type: 'string', arg: 'PID', help: 'the owning process (default: the caller of lanes)' },
    worktree: {
      type: 'boolean',
      short: 'w',
      help: 'give the session its own worktree <repo>.lanes/<slug> on a new branch lanes/<slug> (CMD runs inside it)',
    },
    base: { type: 'string', arg: 'REF', help: 'with --worktree: branch the new worktree from REF (default: HEAD)' },
    cd: {
      type: 'boolean',
      help: "with --worktree and no CMD: leave your shell in the new worktree (needs `lanes shell-init`'s function)",
    },
    join: {
      type: 'boolean',
      help: 'with --ticket: work beside the live session that holds it (not claimed; both flagged as sharing it)',
    },
    seat: {
      type: 'string',
      arg: 'NAME|auto',
      help: "lease a seat (an agent login: lanes seat) to the session; CMD runs on it (auto: the agent's least used free one)",
    },
  },
  acceptsRest: true,
  maxPositionals: 0,
  examples: [
    'export LANES_SESSION=$(lanes start --label billing --ticket SEAT-42)',
    'lanes start --agent codex --ticket SEAT-7 -- codex',
    'lanes start --worktree --ticket SEAT-9 -- claude',
  ],
  async run(args, io) {
    const pidText = str(args.values['pid']);
    if (pidText !== undefined && !/^[1-9]\d{0,9}$/.test(pidText))
      throw usageError(this, `--pid must be a process id, got ${JSON.stringify(pidText)}`);
    if (pidText !== undefined && args.rest.length > 0)
      throw usageError(this, '--pid and `-- CMD` exclude each other: with CMD, lanes owns the session');
    if (args.values['base'] !== undefined && !args.values['worktree'])
      throw usageError(this, '--base goes with --worktree');
    if (args.values['join'] && args.values['ticket'] === undefined) throw usageError(this, '--join goes with --ticket');
    const seat = str(args.values['seat']);
    if (seat === 'auto' && args.values['agent'] === undefined)
      throw usageError(this, "--seat auto needs --agent: it picks among that agent's seats");
    if (args.values['cd'] && (!args.values['worktree'] || args.rest.length > 0))
      throw usageError(this, '--cd goes with --worktree and no CMD (with CMD, CMD runs in the worktree)');
    const lanes = await io.lanes({ session: null });
    const owner =
      args.rest.length > 0 ? process.pid : pidText !== undefined ? Number(pidText) : callerPid(process.ppid);
    const session = await lanes.sessions.start({
      pid: owner,
      label: str(args.values['label']) ?? null,
      agent: str(args.values['agent']) ?? null,
      ticket: str(args.values['ticket']) ?? null,
      join: args.values['join'] === true,
      command: args.rest.length > 0 ? args.rest.join(' ') : null,
      ...(args.values['worktree'] ? { newWorktree: { base: str(args.values['base']) ?? null } } : {}),
    });
    // This host's watcher: the session's death is seen when it happens, whoever dies.
    await ensureWatcher(await resolveStore(str(args.values['store']), process.env));
    const made = session.worktreeMade;
    const lease = seat === undefined ? null : await leaseOrUndo(lanes, session.id, seat, made !== null, args.rest);
    // lanes' project hooks of the worktree it was started from go with it (agents/carry-hooks.ts).
    const carried = made ? await carryHooksInto(lanes, made.path) : null;
    if (carried && !io.json) {
      if (carried.carried.length)
        io.stderr(
          `lanes: project hooks of ${carried.carried.map((c) => c.agent).join(', ')} installed in the new worktree\n`,
        );
      for (const f of carried.failed)
        io.stderr(
          `lanes: warning: ${f.agent}'s project hooks could not be installed in the new worktree: ${f.reason}\n`,
        );
    }
    if (made && !io.json) {
      io.stderr(`worktree ${made.path} on branch ${made.branch}\n`);
      if (made.included)
        io.stderr(
          `.worktreeinclude: copied ${made.included.files} files, ${(made.included.bytes / 1048576).toFixed(1)} MiB in ${made.included.ms} ms\n`,
        );
      for (const s of made.included?.skipped ?? [])
        io.stderr(`lanes: warning: .worktreeinclude: ${s.path} not copied: ${s.reason}\n`);
    }
    if (session.joined)
      io.stderr(
        `lanes: joined ticket ${session.ticket} beside session ${session.joined.session}, which holds it (token ${session.joined.token}); both are shown as sharing it\n`,
      );
    // One worktree, one index: what either stages, the other's plain `git commit` would take.
    if (session.sharedWith.length > 0)
      io.stderr(
        `lanes: warning: ${session.sharedWith.map((s) => s.label ?? s.id).join(', ')} already work${session.sharedWith.length === 1 ? 's' : ''} in ${session.worktree}: one index for all of you (the guard refuses commits of unclaimed paths there); give this session its own with \`lanes start --worktree\`\n`,
      );
    const json = {
      ...withoutWorktreeMade(session),
      sharedWith: session.sharedWith.map((s) => s.id),
      ...(made ? { branch: made.branch, included: made.included, hooks: carried } : {}),
      ...(lease ? { seat: { name: lease.seat.name, slot: lease.slot, token: lease.token } } : {}),
    };
    if (lease && !io.json) io.stderr(`lanes: on seat ${lease.seat.name} (slot ${lease.slot}, token ${lease.token})\n`);
    if (args.rest.length === 0) {
      if (io.json) printJson(io.stdout, json);
      else io.stdout(session.id + '\n');
      if (!io.json && process.stdout.isTTY)
        io.stderr(`owner: pid ${session.owner.pid}; act as this session with: export LANES_SESSION=${session.id}\n`);
      if (args.values['cd'] === true && made) leaveShellIn(made.path, io);
      return EXIT.ok;
    }
    if (io.json) printJson(io.stderr, json);
    const r = await runOnSeat(lanes, session.id, args.rest, made?.path ?? process.cwd(), (line) =>
      io.stderr(`${line}\n`),
    );
    // The one end path: the command's uncommitted work is snapshotted before the session ends.
    // When that fails (git refusing, a full disk) the session stays open with its work untouched,
    // and CMD's exit code still reaches the caller.
    try {
      await endRun(lanes, session.id, r);
    } catch (e) {
      io.stderr(
        `lanes: session ${session.id} was not ended (${e instanceof Error ? e.message : String(e)}); its work is untouched: end it with \`lanes end ${session.id}\` or \`lanes doctor --fix\`\n`,
      );
    }
    return r.code;
  },
};

function withoutWorktreeMade<T extends { worktreeMade: unknown }>(s: T): Omit<T, 'worktreeMade'> {
  const { worktreeMade: _made, ...rest } = s;
  return rest;
}
