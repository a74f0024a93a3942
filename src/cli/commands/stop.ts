import { EXIT } from '../../core/errors.js';
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
  usage: 'stop SESSION [--timeout DURATION] [--force] [--json]',
  description: [
    "Sends SIGTERM to the session's owner (the lanes wrapper forwards it to the agent) and waits, saying so",
    'each second, up to --timeout (default 30s) for the agent to exit and the wrapper to end the session',
    '(its uncommitted work snapshotted first). Past the timeout the tmux session is closed (SIGHUP) and the',
    'session is ended by this command, snapshot first. A session that is already dead is ended at once.',
    'SESSION: its id, label, ticket or tmux name. Only a run lanes started (lanes new, up, start -- CMD) on this',
    "machine is signalled; any other live session (a person's shell, an agent registered by its hooks, another",
    "host's) is refused (exit 3, E_NOT_YOURS) naming its owner; --force ends it without signalling its owner.",
  ].join('\n'),
  options: {
    timeout: { type: 'string', arg: 'DURATION', help: 'how long to wait for the agent (default 30s)' },
    force: { type: 'boolean', help: 'end a live session lanes did not start, without signalling it (journaled)' },
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
          io.stderr(`lanes: waiting for ${s.label ?? s.id} to exit (${waited}s of ${timeoutMs / 1000}s)\n`);
        told = waited;
        await new Promise((r) => setTimeout(r, 100));
      }
      if ((await lanes.sessions.get(s.id)).state === 'live') how = `it did not exit within ${timeoutMs / 1000}s`;
    }
    if (name && tmuxHas(name)) tmux(['kill-session', '-t', `=${name}`]);
    const now = await lanes.sessions.get(s.id);
    // A run lanes started that would not exit is ended by its stop: the run was asked first.
    const ended =
      now.state === 'ended'
        ? null
        : await lanes.sessions.end(s.id, { reason: `lanes stop: ${how}`, forceLive: true, by: 'lanes stop' });
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
  s: { id: string; label: string | null },
  how: string,
  endReason: string | null,
  snapshot: string | null,
): number {
  if (io.json) printJson(io.stdout, { session: s.id, how, endReason, snapshot });
  else io.stdout(`${s.label ?? s.id} stopped: ${endReason ?? how}${snapshot ? `; work saved in ${snapshot}` : ''}\n`);
  return EXIT.ok;
}
