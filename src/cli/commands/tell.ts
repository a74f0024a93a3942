import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { usageError } from '../command.js';
import { printJson } from '../output.js';
import { utcMinute } from '../../core/duration.js';

export const command: CommandSpec = {
  name: 'tell',
  summary: "Tell a session's agent something: delivered through its hooks at its next tool call or turn.",
  usage: 'tell SESSION MESSAGE… | tell SESSION --list [--json]',
  description: [
    'SESSION (its id, label, ticket or tmux name) gets MESSAGE (the words after it, one message) from you. It is',
    "journaled (tell) and reaches the agent the way lanes' own warnings do: added to the context of its next",
    'hook call that speaks to its model (Claude Code: a tool call or its next prompt; Codex, Cursor and Copilot: a',
    'tool call; Gemini and OpenCode: after an edit; every agent: a new or resumed session), then journaled as',
    'delivered (tell.delivered). Until then it is pending: --list shows each message to SESSION with its state.',
    'An ended session is refused (exit 1); one of another host is told on that host (exit 2).',
  ].join('\n'),
  options: { list: { type: 'boolean', help: 'the messages told to SESSION, each delivered (when, how) or pending' } },
  minPositionals: 1,
  examples: [
    'lanes tell SHOP-12 "rebase on main: cart.test.ts fails after SHOP-9 landed"',
    'lanes tell SHOP-12 --list',
  ],
  async run(args, io) {
    const [name, ...words] = args.positionals as [string, ...string[]];
    const lanes = await io.lanes();
    if (args.values['list'] === true) {
      if (words.length) throw usageError(this, '--list takes the session only');
      const told = await lanes.sessions.told(name);
      if (io.json) printJson(io.stdout, told);
      else if (told.length === 0) io.stdout(`nothing was told to ${name}\n`);
      else
        for (const t of told)
          io.stdout(
            `#${t.seq} ${utcMinute(t.at)} from ${t.from}: ${t.delivered ? `delivered ${utcMinute(t.delivered.at)} (${t.delivered.via})` : 'pending'}\n    ${t.message.split('\n').join('\n    ')}\n`,
          );
      return EXIT.ok;
    }
    if (words.length === 0) throw usageError(this, 'say what to tell it: lanes tell SESSION MESSAGE');
    const t = await lanes.sessions.tell(name, words.join(' '));
    if (io.json) printJson(io.stdout, t);
    else
      io.stdout(
        `told ${t.session} (#${t.seq}): pending until its agent's next tool call or turn (lanes tell ${t.session} --list)\n`,
      );
    return EXIT.ok;
  },
};
