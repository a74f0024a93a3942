import { EXIT } from '../../core/errors.js';
import { shellQuote } from '../../core/shell-quote.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson } from '../output.js';

const sh = shellQuote;
const fish = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const dotenv = (v: string) =>
  `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$/g, '\\$').replace(/\n/g, '\\n')}"`;

export const command: CommandSpec = {
  name: 'env',
  summary:
    "Print the session's environment: identity, private TMPDIR and runtime dir, PORT_<NAME> leases, templated names.",
  usage: 'env [--shell sh|fish|json|dotenv] [--check] [--session S]',
  description:
    'eval "$(lanes env)" in sh/bash/zsh; lanes env --shell fish | source in fish. --check also lists the\ninherited variables that `lanes exec` strips ([env] strip in lanes.toml).',
  options: {
    shell: { type: 'string', arg: 'sh|fish|json|dotenv', help: 'output format (default sh)' },
    check: { type: 'boolean', help: 'also say which inherited variables would be stripped' },
    session: { type: 'string', arg: 'S', help: 'the session (default $LANES_SESSION)' },
  },
  maxPositionals: 0,
  async run(args, io) {
    const shell = str(args.values['shell']) ?? (io.json ? 'json' : 'sh');
    if (!['sh', 'fish', 'json', 'dotenv'].includes(shell))
      throw usageError(this, `--shell takes sh, fish, json or dotenv, got ${JSON.stringify(shell)}`);
    const lanes = await io.lanes();
    const env = await lanes.environment({ session: str(args.values['session']) ?? null, inherited: process.env });
    const entries = Object.entries(env.vars);
    if (shell === 'json')
      printJson(io.stdout, args.values['check'] ? { vars: env.vars, stripped: env.stripped } : env.vars);
    else {
      for (const [k, v] of entries)
        io.stdout(
          shell === 'sh'
            ? `export ${k}=${sh(v)}\n`
            : shell === 'fish'
              ? `set -gx ${k} ${fish(v)}\n`
              : `${k}=${dotenv(v)}\n`,
        );
      if (args.values['check']) {
        const line = env.stripped.length ? `stripped by lanes exec: ${env.stripped.join(' ')}` : 'nothing to strip';
        io.stdout(`# ${line}\n`);
      }
    }
    return EXIT.ok;
  },
};
