import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';

export const command: CommandSpec = {
  name: 'ui',
  summary: 'A live web dashboard of the fleet: sessions, claims and waits, conflicts, snapshots, the journal.',
  usage: 'ui [--port N] [--host H] [--open] [--json]',
  description: [
    'Serves a local page (127.0.0.1 only, unless --host) that shows every session of the store by repository,',
    'who holds and who waits for what, predicted conflicts, snapshots with the command to restore each, and',
    'the journal, updated live. Its actions (snapshot a session; end, adopt or release the claims of a dead',
    'session; mark one ready to land) ask first and call the same library functions as the CLI. The URL printed holds a token that',
    'changes every run: open that URL. --json prints {"url","port","host"} once it listens. Runs until Ctrl-C.',
  ].join('\n'),
  options: {
    port: { type: 'string', arg: 'N', help: 'the port to listen on (default 0: any free port)' },
    host: {
      type: 'string',
      arg: 'H',
      help: 'the address to listen on (default 127.0.0.1; any other is reachable from other machines)',
    },
    open: { type: 'boolean', help: 'open the page in the default browser' },
  },
  maxPositionals: 0,
  examples: ['lanes ui --open', 'lanes ui --port 7420'],
  async run(args, io) {
    const portText = str(args.values['port']) ?? '0';
    if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535)
      throw usageError(this, `--port must be a number from 0 to 65535, got ${JSON.stringify(portText)}`);
    const host = str(args.values['host']) ?? '127.0.0.1';
    if (host === '' || /[\s/?#@]/.test(host))
      throw usageError(this, `--host must be an address or host name, got ${JSON.stringify(host)}`);
    const store = str(args.values['store']);
    // Its own bundle (dist/ui.cjs): the HTTP server is loaded by this command only.
    const { serveUi } = await import('../../ui/server.js');
    await serveUi({
      host,
      port: Number(portText),
      open: args.values['open'] === true,
      json: io.json,
      signal: io.signal,
      stdout: io.stdout,
      stderr: io.stderr,
      ...(store ? { store } : {}),
    });
    return EXIT.ok;
  },
};
