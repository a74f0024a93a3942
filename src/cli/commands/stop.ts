import { writeFailureText } from '../../core/disk-full.js';
import { EXIT, LanesError } from '../../core/errors.js';
import type { Lanes } from '../../index.js';
import { bootId, hostId } from '../../core/process-identity.js';
import { parseDuration } from '../../core/duration.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';
import { blockedTeardownOf, blockedTeardownText } from '../teardown-text.js';
import { tmux, tmuxHas, tmuxOf } from '../tmux.js';

export const command: CommandSpec = {
  name: 'stop',
  summary: 'Ask the agent of a session lanes started to exit, wait for it, then snapshot and end the session.',
  usage: 'stop SESSION [--timeout DURATION] [--force] [--no-save] [--json]',
  description: [
    "Sends SIGTERM to the session's owner (the lanes wrapper forwards it to the agent) and waits, saying so",
    'each second, up to --timeout (default 30s) for the agent to exit and the wrapper to end the session',
    '(its uncommitted work snapshotted first). Past the timeout the tmux session is closed (SIGHUP) and the',
    'session is ended by this command, snapshot first. A session that is already dead is ended at once.',
    'SESSION: its id, label, ticket or tmux name. Only a run lanes started (lanes new, up, start -- CMD) on this',
    "machine is signalled; any other live session (a person's shell, an agent registered by its hooks, another",
    "host's) is refused (exit 3, E_NOT_YOURS) naming its owner; --force ends it without signalling its owner.",
    'Its work is saved before the agent is asked to exit: when that fails (a full disk) the agent is not',
    'stopped (exit 1, E_SNAPSHOT, why); --no-save stops it anyway. When what it wrote after cannot be saved,',
    'the session stays open (dead, its claims held) and lanes says so with the command that ends it.',
  ].join('\n'),
  options: {
    timeout: { type: 'string', arg: 'DURATION', help: 'how long to wait for the agent (default 30s)' },
    force: { type: 'boolean', help: 'end a live session lanes did not start, without signalling it (journaled)' },
    'no-save': {
      type: 'boolean',
      help: 'stop it without saving its work first (a full disk): the files stay in its worktree, in no ref',
    },
  },
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['lanes stop SHOP-12', 'lanes stop s-4sx2k9d1qa --timeout 2m'],
  async run(args, io) {
    const lanes = await io.lanes({ session: null });
    const timeoutMs = parseDuration(str(args.values['timeout']) ?? '30s', '--timeout');
    const force = args.values['force'] === true;
    const s = await lanes.sessions.resolve(args.positionals[0]!);
    const name = tmuxOf(s.terminal);
    const snapshotsBefore = (await lanes.snapshots.list(s.id)).length;
    let how = 'already ended';
    // Only a run lanes started on this machine is signalled (its owner is lanes' wrapper); any
    // other live session goes through the one rule of ending (refused unless --force).
    const here = s.owner.host === hostId() && s.owner.bootId === bootId();
    const ours = here && s.command !== null;
    if (s.state === 'live' && !ours) {
      const r = await lanes.sessions.end(s.id, { reason: 'lanes stop --force', forceLive: force, by: 'lanes stop' });
      return said(io, s, 'ended without signalling its owner (--force)', r.session.endReason, r.snapshot?.ref ?? null);
    }
    const noSave = args.values['no-save'] === true;
    if (s.state === 'live' && !noSave && s.worktree) await saveBeforeStopping(lanes, s);
    if (s.state === 'live') {
      how = 'the agent exited';
      try {
        process.kill(s.owner.pid, 'SIGTERM');
      } catch {
        // gone meanwhile: ended below
      }
      const started = Date.now();
      let told = 0;
      while ((await lanes.sessions.get(s.id)).state === 'live' && Date.now() - started < timeoutMs) {
        const waited = Math.floor((Date.now() - started) / 1000);
        if (waited > told && !io.json)
          io.stderr(`lanes: waiting for ${s.label ?? s.ticket ?? s.id} to exit (${waited}s of ${timeoutMs / 1000}s)\n`);
        told = waited;
        await new Promise((r) => setTimeout(r, 100));
      }
      if ((await lanes.sessions.get(s.id)).state === 'live') how = `it did not exit within ${timeoutMs / 1000}s`;
    }
    if (name && tmuxHas(name)) tmux(['kill-session', '-t', `=${name}`]);
    const now = await lanes.sessions.get(s.id);
    // A run lanes started that would not exit is ended by its stop: the run was asked first.
    let ended: Awaited<ReturnType<typeof lanes.sessions.end>> | null = null;
    if (now.state !== 'ended')
      try {
        ended = await lanes.sessions.end(s.id, {
          reason: `lanes stop: ${how}`,
          forceLive: true,
          by: 'lanes stop',
          ...(noSave ? { skipSnapshot: true } : {}),
        });
      } catch (e) {
        // The agent is stopped; what it wrote since the save above is not: the session stays open.
        throw new LanesError(
          'E_SNAPSHOT',
          `stopped the agent of ${s.label ?? s.ticket ?? s.id} (${how}), but could not end its session: ${(e as Error).message}`,
          {
            hint: `the session stays open (dead) with its claims, its files in ${s.worktree ?? 'its worktree'}; fix the cause, then \`lanes end ${s.id}\` (or \`lanes end ${s.id} --skip-snapshot\`)`,
          },
        );
      }
    const after = await lanes.sessions.get(s.id);
    // Saved by the wrapper as the agent exited, or by this command's end.
    const saved = (await lanes.snapshots.list(s.id)).slice(snapshotsBefore).map((x) => `${x.owner}/${x.n}`);
    const blocked = after.setupState === 'failed' ? await blockedTeardownOf(lanes, s.id) : null;
    if (blocked !== null) io.stderr(blockedTeardownText(s.id, blocked));
    else if (after.setupState === 'failed')
      io.stderr(`lanes: warning: [session] teardown failed; run it again with \`lanes teardown ${s.id}\`\n`);
    const code = said(io, s, how, after.endReason, saved.at(-1) ?? ended?.snapshot?.ref ?? null);
    return blocked !== null ? EXIT.untrusted : code;
  },
};

function said(
  io: Parameters<CommandSpec['run']>[1],
  s: { id: string; label: string | null; ticket: string | null },
  how: string,
  endReason: string | null,
  snapshot: string | null,
): number {
  if (io.json) printJson(io.stdout, { session: s.id, how, endReason, snapshot });
  else
    io.stdout(
      `${s.label ?? s.ticket ?? s.id} stopped: ${endReason ?? how}${snapshot ? `; work saved in ${snapshot}` : ''}\n`,
    );
  return EXIT.ok;
}

/**
 * Saves the session's work before its agent is asked to exit: a stop that could not save it (a
 * full disk) must not have stopped the agent first (issue 46, item 5).
 */
async function saveBeforeStopping(
  lanes: Lanes,
  s: { id: string; label: string | null; ticket: string | null; worktree: string | null },
): Promise<void> {
  try {
    await lanes.snapshots.snapshot({ session: s.id, why: 'lanes stop (saved before the agent was asked to exit)' });
  } catch (e) {
    const raw = (e as Error).message;
    const why = writeFailureText(s.worktree, raw);
    throw new LanesError(
      'E_SNAPSHOT',
      `could not save the work of ${s.label ?? s.ticket ?? s.id}, so its agent was not stopped: ${why}`,
      {
        hint: `nothing changed; fix the cause (free some space) and stop again, or \`lanes stop ${s.id} --no-save\` (its files stay in the worktree, in no ref)`,
      },
    );
  }
}
