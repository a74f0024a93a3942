import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { usageError } from '../command.js';
import { printJson } from '../output.js';
import { utcMinute } from '../../core/duration.js';
import type { Lanes, Told } from '../../index.js';
import { findTmux, tmux, tmuxHas, tmuxOf } from '../tmux.js';

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
    'An agent lanes started in tmux whose turn has finished (it waits at its prompt) gets it typed there at once,',
    'as your next prompt (one line); a pane whose agent works or asks something (a permission, a question) never.',
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
    const typed = await typeIfIdle(lanes, t);
    if (typed) {
      const done = { ...t, delivered: { at: Date.now(), via: typed } };
      if (io.json) printJson(io.stdout, done);
      else io.stdout(`told ${t.session} (#${t.seq}): typed into its idle agent's pane (${typed})\n`);
      return EXIT.ok;
    }
    if (io.json) printJson(io.stdout, t);
    else
      io.stdout(
        `told ${t.session} (#${t.seq}): pending until its agent's next tool call or turn (lanes tell ${t.session} --list)\n`,
      );
    return EXIT.ok;
  },
};

/**
 * An agent lanes started in tmux whose turn has finished sits at its prompt: the message is typed
 * there as the person's next prompt (one line) and so reaches it now. Only then: a pane whose agent
 * works, asks a permission or a question (waiting), or is not lanes' is never typed into; the hooks
 * deliver the message at its next call instead.
 */
async function typeIfIdle(lanes: Lanes, t: Told): Promise<string | null> {
  const s = await lanes.sessions.get(t.session);
  const name = tmuxOf(s.terminal);
  if (!name || s.state !== 'live' || s.attention?.state !== 'finished' || !findTmux() || !tmuxHas(name)) return null;
  // A person's words only: a message from a session waits for the agent's hooks, never types into its pane.
  if (lanes.sessionId) return null;
  const line = `(lanes tell from ${t.from}) ${t.message.replace(/\s*\n\s*/g, ' ')}`;
  const target = `=${name}:`;
  // Pasted (bracketed where the agent asked for it: the text is not read as keys), then Enter.
  const buffer = `lanes-tell-${process.pid}`;
  if (!tmux(['set-buffer', '-b', buffer, '--', line]).ok) return null;
  if (!tmux(['paste-buffer', '-p', '-d', '-b', buffer, '-t', target]).ok) return null;
  if (!tmux(['send-keys', '-t', target, 'Enter']).ok) return null;
  const via = `typed into tmux ${name} (its turn had finished)`;
  await lanes.sessions.delivered(t.session, t.seq, via);
  return via;
}
