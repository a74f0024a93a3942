import { COMMANDS } from './registry.js';

export function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    'lanes: the safety layer for running many AI coding agents and people in parallel.',
    '',
    'Usage: lanes <command> [options]      (lanes <command> --help for details)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    'Resources: ticket:SEAT-42  path:src/billing/  branch:NAME  or any kind:name (kind [a-z][a-z0-9-]*)',
    'Environment: LANES_SESSION, LANES_STORE, LANES_HOME, XDG_RUNTIME_DIR, LANES_HOST_ID, LANES_LEASE_MS',
    'Exit codes: 0 ok, 1 error, 2 usage, 3 held or in conflict, 4 wrong owner/integrity/fencing, 5 timed out or aborted.',
    '',
  ].join('\n');
}
