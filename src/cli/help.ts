import { COMMON_OPTIONS, EXIT_CODES_TEXT } from './command.js';
import type { CommandGroup, CommandSpec } from './command.js';
import { hanging, terminalWidth, wrap } from './layout.js';
import { COMMANDS } from './registry.js';

/** The groups of `lanes --help`, in the order a user meets them: the night first, upkeep last. */
export const GROUP_TITLES: Readonly<Record<CommandGroup, string>> = {
  fleet: 'Start and watch the fleet',
  sessions: 'Sessions',
  claims: 'Claims',
  git: 'Git: commit, save, land',
  record: 'The record',
  admin: 'Setup and admin',
};

/** `lanes --help`: each command by name with its summary, grouped by task (its usage is in `lanes CMD --help`). */
export function overview(width = terminalWidth()): string {
  const nameWidth = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    wrap('lanes: the safety layer for running many AI coding agents and people in parallel.', width),
    '',
    wrap('Usage: lanes <command> [options]      (lanes <command> --help for details)', width, '  '),
    '',
    ...(Object.keys(GROUP_TITLES) as CommandGroup[]).flatMap((g) => [
      `${GROUP_TITLES[g]}:`,
      ...COMMANDS.filter((c) => c.group === g).map((c) => hanging(c.name, c.summary, nameWidth, width)),
      '',
    ]),
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

/** A command's --help, wrapped at words to the terminal's width (layout.ts). */
export function helpText(spec: CommandSpec, width = terminalWidth()): string {
  const options = { ...spec.options, ...COMMON_OPTIONS };
  const rows = Object.entries(options).map(
    ([k, o]) => [`${o.short ? `-${o.short}, ` : '    '}--${k}${o.arg ? ` ${o.arg}` : ''}`, o.help] as const,
  );
  // A flag column wider than a third of the page puts its longest flags' help below them.
  const flags = rows.map((r) => r[0].length).sort((a, b) => a - b);
  const fits = flags.filter((n) => n <= Math.floor(width / 3));
  const labelWidth = Math.max(...(fits.length ? fits : flags.slice(0, 1)));
  const lines = [wrap(`lanes ${spec.usage}`, width, '      '), '', wrap(spec.summary, width)];
  if (spec.description) lines.push('', wrap(spec.description, width));
  lines.push('', 'Options:', ...rows.map(([a, h]) => hanging(a, h, labelWidth, width)));
  if (spec.examples?.length) lines.push('', 'Examples:', ...spec.examples.map((e) => `  ${wrap(e, width, '      ')}`));
  lines.push('', wrap(EXIT_CODES_TEXT, width, '  '));
  return lines.join('\n') + '\n';
}
