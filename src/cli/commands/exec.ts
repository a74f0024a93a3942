import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { runChild } from '../run-child.js';

export const command: CommandSpec = {
  name: 'exec',
  summary: "Run CMD in the session's worktree with the session's environment, stripped variables removed.",
  usage: 'exec [--session S] -- CMD ARGS…',
  description:
    "stdin/stdout/stderr are the terminal's; signals are forwarded; CMD's exit code is passed through\n(a signal death as 128+N, a missing command as 127). CMD runs in the session's worktree, or the cwd\nwhen it has none.",
  options: { session: { type: 'string', arg: 'S', help: 'the session (default $LANES_SESSION)' } },
  acceptsRest: true,
  maxPositionals: 0,
  async run(args, io) {
    if (args.rest.length === 0) throw usageError(this, 'give the command after --: lanes exec -- CMD ARGS…');
    const lanes = await io.lanes();
    const env = await lanes.environment({ session: str(args.values['session']) ?? null, inherited: process.env });
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    for (const k of env.stripped) delete childEnv[k];
    Object.assign(childEnv, env.vars);
    // A lease refreshed within a twelfth of its length (5 s of 60) is not written again, as in every hook call.
    await lanes.heartbeat({ unlessFresh: true });
    const { code } = await runChild(args.rest, { cwd: env.session.worktree ?? process.cwd(), env: childEnv });
    return code;
  },
};
