import { EXIT } from '../../core/errors.js';
import { parseDuration } from '../../core/duration.js';
import type { Json } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'state',
  summary:
    "Read or change this session's state. Changes go through the session's gate, one at a time across processes.",
  usage: 'state get [KEY] | state set KEY JSON | state clear [KEY]  [--session S] [--timeout DURATION] [--json]',
  description: [
    'get prints the whole state (a JSON object; {} when empty) or one key (exit 1 when absent).',
    'set stores a JSON value under KEY; clear removes KEY, or the whole state.',
    "When another process is changing the same session's state, set and clear wait for it; after 1 s they",
    'say who they wait for. Ctrl-C stops waiting with nothing changed; --timeout gives up with exit 5.',
  ].join('\n'),
  options: {
    session: { type: 'string', arg: 'S', help: 'the session (default $LANES_SESSION)' },
    timeout: { type: 'string', arg: 'DURATION', help: 'give up waiting for the gate after DURATION (exit 5)' },
  },
  minPositionals: 1,
  maxPositionals: 3,
  examples: ['lanes state set step \'"tests"\'', 'lanes state get step', 'lanes state clear'],
  async run(args, io) {
    const [action, key, value] = args.positionals;
    if (action !== 'get' && action !== 'set' && action !== 'clear')
      throw usageError(this, `unknown action ${JSON.stringify(action)}: use get, set or clear`);
    const lanes = await io.lanes();
    const session = str(args.values['session']) ?? (await lanes.sessions.current()).id;
    const timeout = str(args.values['timeout']);
    const wait = { signal: io.signal, ...(timeout ? { timeoutMs: parseDuration(timeout, '--timeout') } : {}) };
    switch (action) {
      case 'get': {
        if (value !== undefined) throw usageError(this, 'get takes at most a KEY');
        printJson(
          io.stdout,
          key === undefined ? ((await lanes.state.get(session)) ?? {}) : await lanes.state.getKey(session, key),
        );
        return EXIT.ok;
      }
      case 'set': {
        if (key === undefined || value === undefined)
          throw usageError(this, 'set needs KEY and JSON, e.g. lanes state set step \'"tests"\'');
        let parsed: Json;
        try {
          parsed = JSON.parse(value) as Json;
        } catch {
          throw usageError(
            this,
            `the value for ${key} is not valid JSON: ${value.slice(0, 60)} (quote strings: '"text"')`,
          );
        }
        const after = await lanes.state.setKey(session, key, parsed, wait);
        if (io.json) printJson(io.stdout, after);
        return EXIT.ok;
      }
      case 'clear': {
        if (value !== undefined) throw usageError(this, 'clear takes at most a KEY');
        if (key === undefined) {
          const existed = await lanes.state.clear(session, wait);
          if (io.json) printJson(io.stdout, { cleared: existed });
          return EXIT.ok;
        }
        const after = await lanes.state.clearKey(session, key, wait);
        if (io.json) printJson(io.stdout, after ?? {});
        return EXIT.ok;
      }
      default:
        throw usageError(this, `unknown action ${JSON.stringify(action)}: use get, set or clear`);
    }
  },
};
