import { EXIT, LanesError } from '../../core/errors.js';
import { bootId, hostId } from '../../core/process-identity.js';
import { parseDuration } from '../../core/duration.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';
import { tmux, tmuxHas, tmuxOf } from '../tmux.js';

export const command: CommandSpec = {
  name: 'stop',
  summary: 'Ask the agent of a session lanes new started to exit, wait for it, then snapshot and end the session.',
  usage: 'stop SESSION [--timeout DURATION]',
  description: [
    "Sends SIGTERM to the session's owner (the lanes wrapper forwards it to the agent) and waits, saying so",
    'each second, up to --timeout (default 30s) for the agent to exit and the wrapper to end the session',
    '(its uncommitted work snapshotted first). Past the timeout the tmux session is closed (SIGHUP) and the',
    'session is ended by this command, snapshot first. A session that is already dead is ended at once.',
  ].join('\n'),
  options: { timeout: { type: 'string', arg: 'DURATION', help: 'how long to wait for the agent (default 30s)' } },
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['lanes stop s-4sx2k9d1qa', 'lanes stop s-4sx2k9d1qa --timeout 2m'],
  async run(args, io) {
    const lanes = await io.lanes({ session: null });
    const timeoutMs = parseDuration(str(args.values['timeout']) ?? '30s', '--timeout');
    const s = await lanes.sessions.resolve(args.positionals[0]!);
    const name = tmuxOf(s.terminal);
    const snapshotsBefore = (await lanes.snapshots.list(s.id)).length;
    let how = 'already ended';
    // Only a process of this machine is ever signalled (a team store's sessions run elsewhere).
    if (s.state === 'live' && (s.owner.host !== hostId() || s.owner.bootId !== bootId()))
      throw new LanesError('E_USAGE', `session ${s.id} runs on ${s.owner.host}, not on this machine`, {
        hint: `stop it there (lanes stop ${s.id} on ${s.owner.host})`,
      });
    if (s.state === 'live') {
      how = 'the agent exited';
      try {
        process.kill(s.owner.pid, 'SIGTERM');
      } catch {
        // gone meanwhile: ended below
      }
      const started = Date.now();
      let said = 0;
      while ((await lanes.sessions.get(s.id)).state === 'live' && Date.now() - started < timeoutMs) {
        const waited = Math.floor((Date.now() - started) / 1000);
        if (waited > said && !io.json)
          io.stderr(`lanes: waiting for ${s.label ?? s.id} to exit (${waited}s of ${timeoutMs / 1000}s)\n`);
        said = waited;
        await new Promise((r) => setTimeout(r, 100));
      }
      if ((await lanes.sessions.get(s.id)).state === 'live') how = `it did not exit within ${timeoutMs / 1000}s`;
    }
    if (name && tmuxHas(name)) tmux(['kill-session', '-t', `=${name}`]);
    const now = await lanes.sessions.get(s.id);
    const ended = now.state === 'ended' ? null : await lanes.sessions.end(s.id, { reason: `lanes stop: ${how}` });
    const after = await lanes.sessions.get(s.id);
    // Saved by the wrapper as the agent exited, or by this command's end.
    const saved = (await lanes.snapshots.list(s.id)).slice(snapshotsBefore).map((x) => `${x.owner}/${x.n}`);
    const snapshot = saved.at(-1) ?? ended?.snapshot?.ref ?? null;
    if (io.json) printJson(io.stdout, { session: s.id, how, endReason: after.endReason, snapshot });
    else
      io.stdout(
        `${s.label ?? s.id} stopped: ${after.endReason ?? how}${snapshot ? `; work saved in ${snapshot}` : ''}\n`,
      );
    return EXIT.ok;
  },
};
