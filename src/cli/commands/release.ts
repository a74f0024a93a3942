import { EXIT, LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'release',
  summary:
    'Release claims of this session. Exit 1 when one of them was not held by it (the others are still released).',
  usage: 'release RESOURCE… [--session S] [--json]',
  options: { session: { type: 'string', arg: 'S', help: 'act as session S instead of $LANES_SESSION' } },
  minPositionals: 1,
  async run(args, io) {
    const lanes = await io.lanes();
    const session = str(args.values['session']);
    const result = await lanes.claims.release(args.positionals, session ? { session } : {});
    const notHeld =
      result.notHeld.length > 0
        ? new LanesError('E_NOT_HOLDER', `not held by this session: ${result.notHeld.map(formatResource).join(', ')}`, {
            hint: 'see what it holds with `lanes whoami`, and who holds a resource with `lanes check RESOURCE`',
          })
        : null;
    // --json: one document, what was released and, when something was not held, the error beside it.
    if (io.json) {
      printJson(
        io.stdout,
        notHeld ? { ...result, error: { code: notHeld.code, message: notHeld.message, hint: notHeld.hint } } : result,
      );
      return notHeld ? notHeld.exitCode : EXIT.ok;
    }
    for (const c of result.released) io.stdout(`released ${formatResource(c)} (token ${c.token})\n`);
    if (notHeld) throw notHeld;
    return EXIT.ok;
  },
};
