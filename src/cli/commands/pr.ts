import { EXIT } from '../../core/errors.js';
import { formatAge } from '../../core/duration.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson, Table } from '../output.js';
import type { Lanes, PrResult } from '../../index.js';

export const command: CommandSpec = {
  name: 'pr',
  summary:
    "Push a session's branch and open a pull request with the GitHub CLI (gh), its body from the session's record.",
  usage:
    'pr [SESSION] [--base BRANCH] [--remote NAME] [--title T] [--draft] [--dry-run] [--force] [--list [--all] [--offline]] [--json]',
  description: [
    'SESSION (its id, label, ticket or tmux name; default: the session this shell or agent acts as): its branch is',
    "pushed to the remote (the base's upstream, else origin) only if the remote's branch is where lanes read it",
    '(git push --force-with-lease; a branch someone else pushed to is refused, exit 3, naming the commit and',
    'its committer), then gh opens a pull request into the base (default: the main branch): titled from the',
    "ticket and task, its body from the session's record (its commits, the checks lanes ran, the claims it",
    "held, the journal's decisions), redacted as the page is. Its URL is journaled (pr) on the session; an",
    'open pull request of the branch is updated by the push, not opened twice. gh must be installed and',
    'logged in (gh auth login or GH_TOKEN); it picks the repository from the remotes. --dry-run prints',
    'the title and body and pushes nothing. An agent opens its own; a person any; an agent another live',
    "session's only with --force. Uncommitted files in the worktree are named: they are not in it.",
    '--list: the pull requests lanes opened in this repository (--all: every one), each with its state and',
    'checks as gh pr checks has them (asked now; --offline: as last recorded); a change is journaled (pr.checks).',
    'Exit codes: 0 done; 1 gh missing, not logged in or refused (E_GH), or nothing to open; 2 bad usage;',
    '3 the remote branch moved, or another live session.',
  ].join('\n'),
  options: {
    base: { type: 'string', arg: 'BRANCH', help: "the branch to merge into (default: the repository's main branch)" },
    remote: { type: 'string', arg: 'NAME', help: "the remote to push to (default: the base's upstream, else origin)" },
    title: { type: 'string', arg: 'T', help: 'the title (default: TICKET: the task, or the first commit)' },
    draft: { type: 'boolean', help: 'open it as a draft' },
    'dry-run': { type: 'boolean', help: 'print the title and body; push and open nothing' },
    force: { type: 'boolean', help: "open another live session's from a session of its own" },
    list: { type: 'boolean', help: 'the pull requests lanes opened here, with their checks' },
    all: { type: 'boolean', help: 'with --list: of every repository' },
    offline: { type: 'boolean', help: 'with --list: as last recorded, without asking gh' },
  },
  maxPositionals: 1,
  examples: ['lanes pr SHOP-12', 'lanes pr cart --dry-run', 'lanes pr --list'],
  async run(args, io) {
    const v = args.values;
    if (v['list'] === true) {
      const bad = ['base', 'remote', 'title', 'draft', 'dry-run', 'force'].filter((k) => v[k] !== undefined);
      if (bad.length || args.positionals.length)
        throw usageError(
          this,
          `--list takes only --all, --offline and --json (not ${[...bad.map((b) => `--${b}`), ...args.positionals].join(', ')})`,
        );
      return list(await io.lanes({ session: null }), io, v['all'] === true, v['offline'] !== true);
    }
    if (v['all'] !== undefined || v['offline'] !== undefined)
      throw usageError(this, '--all and --offline go with --list');
    const name = args.positionals[0] ?? null;
    const lanes = await io.lanes();
    const title = str(v['title']);
    if (title !== undefined && !title.trim()) throw usageError(this, '--title is empty');
    const r = await lanes.pullRequests.open(name, {
      ...(str(v['base']) ? { base: str(v['base'])! } : {}),
      ...(str(v['remote']) ? { remote: str(v['remote'])! } : {}),
      ...(title ? { title } : {}),
      ...(v['draft'] === true ? { draft: true } : {}),
      ...(v['dry-run'] === true ? { dryRun: true } : {}),
      ...(v['force'] === true ? { force: true } : {}),
    });
    if (io.json) printJson(io.stdout, r);
    else io.stdout(said(r));
    return EXIT.ok;
  },
};

function said(r: PrResult): string {
  const lines: string[] = [];
  if (!r.push)
    lines.push(
      `would push ${r.branch} (${r.commits} commit(s), ${r.head.slice(0, 10)}) to ${r.remote} and open a pull request into ${r.base}:`,
      '',
      `title: ${r.title}`,
      '',
      r.body,
    );
  else {
    const moved =
      r.push.from === r.push.to
        ? 'already there'
        : `${r.push.from ? r.push.from.slice(0, 10) : 'new'} -> ${r.push.to.slice(0, 10)}, leased`;
    lines.push(`pushed ${r.branch} to ${r.remote} (${moved})`);
    lines.push(
      `${r.existed ? 'updated the open pull request' : 'opened'} ${r.url} (${r.commits} commit(s) into ${r.base})`,
    );
  }
  if (r.uncommitted)
    lines.push(
      `note: ${r.uncommitted} uncommitted file(s) in its worktree are not in it (lanes diff ${r.ticket ?? r.session})`,
    );
  return `${lines.join('\n')}\n`;
}

async function list(
  lanes: Lanes,
  io: Parameters<CommandSpec['run']>[1],
  all: boolean,
  refresh: boolean,
): Promise<number> {
  const r = await lanes.pullRequests.list({ all, refresh });
  if (io.json) {
    printJson(io.stdout, r);
    return EXIT.ok;
  }
  for (const e of r.errors) io.stderr(`lanes pr: could not ask gh (${e}); the last recorded state is shown\n`);
  if (!r.pullRequests.length) {
    io.stdout(`no pull request opened by lanes ${all ? '' : 'in this repository '}(lanes pr SESSION opens one)\n`);
    return EXIT.ok;
  }
  const now = await lanes.now();
  io.stdout(
    new Table(
      ['TICKET', 'SESSION', 'STATE', 'ASKED', 'URL'],
      r.pullRequests.map((p) => [
        p.ticket,
        p.session,
        p.text,
        p.checkedAt ? `${formatAge(now - p.checkedAt)} ago` : 'never',
        p.url,
      ]),
      { wrap: { STATE: 3 }, keep: ['URL'] },
    ).toString(),
  );
  return EXIT.ok;
}
