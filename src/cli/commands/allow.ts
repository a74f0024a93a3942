import { EXIT } from '../../core/errors.js';
import type { TrustTarget } from '../../index.js';
import type { CommandSpec, Io } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';

// `lanes allow` and `lanes deny` (deny.ts): the user's word on a repository's lanes.toml, as
// `direnv allow` takes it. Nothing a repository's lanes.toml runs or sets ([session] setup and
// teardown, every [env] template) runs until the user allowed that exact content.

export const TRUST_OPTIONS = {
  rev: {
    type: 'string',
    arg: 'REV',
    help: 'the lanes.toml of revision REV (a branch you start a worktree from with --base REV)',
  },
} as const;

/** What the file runs, one line each, for a person to read before allowing it. */
export function printTarget(io: Io, t: TrustTarget): void {
  const where = t.rev ? `${t.rev}:lanes.toml` : t.file;
  if (t.runs.length === 0) {
    io.stdout(`${where} runs nothing and sets nothing: it needs no approval\n`);
    return;
  }
  io.stdout(`${where} (sha256 ${t.sha256.slice(0, 16)}, repository ${t.repository}):\n`);
  const width = Math.max(...t.runs.map((r) => r.key.length));
  for (const r of t.runs) io.stdout(`  ${r.key.padEnd(width)}  ${r.value}\n`);
}

export const command: CommandSpec = {
  name: 'allow',
  summary: "Allow what a repository's lanes.toml runs: its [session] setup and teardown and its [env].",
  usage: 'allow [PATH] [--rev REV] [--show] [--list] [--json]',
  description: [
    "A repository's lanes.toml is code someone else wrote: its [session] setup and teardown are shell",
    'commands run with your environment, and each [env] template is put into the environment of your',
    'agents and of lanes exec. lanes runs or sets none of it until you allowed that exact content of that',
    'repository, here: every worktree of the clone shares the approval; a changed file (a pull, an',
    'agent editing it in its worktree, another branch with --base) needs its own. The approval is kept',
    'in your state ($LANES_HOME/trust), never in the repository. PATH is a lanes.toml or the worktree',
    "it is in (default: this worktree's). Refused in an agent's session (exit 6): only a person allows.",
    'Your own config (~/.config/lanes/config.toml) needs none. --show prints what it runs and whether',
    'it is allowed, recording nothing; --list shows every approval and denial. lanes deny revokes.',
  ].join('\n'),
  options: {
    ...TRUST_OPTIONS,
    show: { type: 'boolean', help: 'print what it runs and its state; record nothing' },
    list: { type: 'boolean', help: 'every lanes.toml you allowed or denied' },
  },
  maxPositionals: 1,
  examples: ['lanes allow --show', 'lanes allow', 'lanes allow --rev origin/pr-12', 'lanes allow ../shop/lanes.toml'],
  async run(args, io) {
    const lanes = await io.lanes({ session: null });
    if (args.values['list'] === true) {
      const all = await lanes.trust.list();
      if (io.json) printJson(io.stdout, all);
      else if (all.length === 0) io.stdout('nothing allowed or denied yet\n');
      else
        for (const r of all)
          io.stdout(
            `${r.state.padEnd(7)}  ${r.at.slice(0, 16).replace('T', ' ')}  ${r.rev ? `${r.rev}:lanes.toml of ${r.file}` : r.file}  (${r.runs.map((x) => x.key).join(', ')})\n`,
          );
      return EXIT.ok;
    }
    const o = {
      ...(args.positionals[0] ? { path: args.positionals[0] } : {}),
      ...(str(args.values['rev']) !== undefined ? { rev: str(args.values['rev'])! } : {}),
    };
    if (args.values['show'] === true) {
      const t = await lanes.trust.show(o);
      if (io.json) printJson(io.stdout, t);
      else {
        printTarget(io, t);
        if (t.runs.length)
          io.stdout(
            `${t.state === 'unknown' ? 'not allowed' : t.state}${t.since ? ` (${t.since.slice(0, 16).replace('T', ' ')})` : ''}\n`,
          );
      }
      return EXIT.ok;
    }
    const t = await lanes.trust.allow(o);
    if (io.json) printJson(io.stdout, t);
    else {
      printTarget(io, t);
      if (t.runs.length)
        io.stdout(
          'allowed: lanes runs these in sessions of this repository while the file stays as it is (lanes deny revokes)\n',
        );
    }
    return EXIT.ok;
  },
};
