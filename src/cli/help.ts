import { EXIT_CODES_TEXT } from './command.js';
import { hanging, terminalWidth, wrap } from './layout.js';
import { COMMANDS } from './registry.js';

/** `lanes --help`: each command by name with its summary (its usage is in `lanes CMD --help`). */
export function overview(width = terminalWidth()): string {
  const nameWidth = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    wrap('lanes: the safety layer for running many AI coding agents and people in parallel.', width),
    '',
    wrap('Usage: lanes <command> [options]      (lanes <command> --help for details)', width, '  '),
    '',
    'Commands:',
    ...COMMANDS.map((c) => hanging(c.name, c.summary, nameWidth, width)),
    '',
    wrap(
      'Resources: ticket:SEAT-42  path:src/billing/  branch:NAME  or any kind:name (kind [a-z][a-z0-9-]*)',
      width,
      '  ',
    ),
    wrap(
      'Environment: LANES_SESSION, LANES_STORE, LANES_HOME, XDG_RUNTIME_DIR, LANES_HOST_ID, LANES_LEASE_MS',
      width,
      '  ',
    ),
    wrap(EXIT_CODES_TEXT, width, '  '),
    '',
  ].join('\n');
}
