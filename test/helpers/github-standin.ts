import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local stand-in of GitHub's API for Debian's `gh` (2.23), as `lanes pr` drives it. gh sends a
// host named `github.localhost` to http://api.github.localhost/ (go-gh's ghinstance), and Go's
// HTTP client sends that through $HTTP_PROXY (it goes around a proxy only for `localhost` and
// loopback addresses): so this server is the proxy, and answers the GraphQL operations gh's
// `pr create` and `pr view` send. Anything else is answered 501 and recorded, so a test sees it.

export interface StandInPr {
  number: number;
  url: string;
  title: string;
  body: string;
  base: string;
  head: string;
  draft: boolean;
  state: 'OPEN' | 'CLOSED' | 'MERGED';
  /** statusCheckRollup's contexts as GitHub gives them (CheckRun / StatusContext). */
  checks: Record<string, unknown>[];
}

export interface GitHubStandIn {
  /** Owner/name it serves: the remote is https://github.localhost/OWNER/NAME.git. */
  repo: string;
  remoteUrl: string;
  /** The environment gh needs to talk to it (and nothing of the real GitHub). */
  env: Record<string, string>;
  prs: StandInPr[];
  /** Every GraphQL operation asked, by name, with its variables. */
  calls: { op: string; variables: Record<string, unknown> }[];
  unknown: string[];
  close(): Promise<void>;
}

export function ghInstalled(): string | false {
  try {
    execFileSync('gh', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'gh (the GitHub CLI: apt-get install gh) is not on PATH';
  }
}

export async function gitHubStandIn(o: { owner?: string; name?: string; configDir: string }): Promise<GitHubStandIn> {
  const owner = o.owner ?? 'acme';
  const name = o.name ?? 'widgets';
  const prs: StandInPr[] = [];
  const calls: GitHubStandIn['calls'] = [];
  const unknown: string[] = [];
  const repo = {
    ...{ id: 'R_1', name, owner: { login: owner }, hasIssuesEnabled: true, description: '', hasWikiEnabled: false },
    ...{ viewerPermission: 'ADMIN', defaultBranchRef: { name: 'main' }, parent: null },
    ...{ mergeCommitAllowed: true, rebaseMergeAllowed: true, squashMergeAllowed: true },
  };
  const answer = (op: string, v: Record<string, unknown>): unknown => {
    const here = v['owner'] === owner && (v['name'] ?? v['repo']) === name;
    switch (op) {
      case 'RepositoryInfo':
        return here ? { data: { repository: repo } } : notFound(v);
      case 'PullRequestForBranch': {
        const states = (v['states'] as string[] | undefined) ?? ['OPEN'];
        const nodes = prs
          .filter((p) => p.head === v['headRefName'] && states.includes(p.state))
          .map((p) => ({
            ...{ url: p.url, id: `PR_${p.number}`, number: p.number, state: p.state },
            ...{ baseRefName: p.base, headRefName: p.head, isCrossRepository: false },
            headRepositoryOwner: { id: 'U_1', login: owner, name: owner },
          }))
          .reverse();
        return { data: { repository: { pullRequests: { nodes }, defaultBranchRef: { name: 'main' } } } };
      }
      case 'PullRequestCreate': {
        const input = v['input'] as Record<string, unknown>;
        const number = prs.length + 1;
        const pr: StandInPr = {
          ...{ number, url: `https://github.localhost/${owner}/${name}/pull/${number}` },
          ...{ title: String(input['title']), body: String(input['body']), base: String(input['baseRefName']) },
          ...{ head: String(input['headRefName']), draft: input['draft'] === true, state: 'OPEN', checks: [] },
        };
        prs.push(pr);
        return { data: { createPullRequest: { pullRequest: { id: `PR_${number}`, url: pr.url } } } };
      }
      case 'PullRequestByNumber': {
        const pr = here ? prs.find((p) => p.number === v['pr_number']) : undefined;
        if (!pr) return notFound(v);
        const rollup = { contexts: { nodes: pr.checks, pageInfo: { hasNextPage: false, endCursor: '' } } };
        return {
          data: {
            repository: {
              pullRequest: {
                ...{ id: `PR_${pr.number}`, url: pr.url, number: pr.number, state: pr.state, isDraft: pr.draft },
                ...{ title: pr.title, body: pr.body, baseRefName: pr.base, headRefName: pr.head },
                statusCheckRollup: { nodes: [{ commit: { statusCheckRollup: rollup } }] },
              },
            },
          },
        };
      }
      default:
        return null;
    }
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      let out: unknown = null;
      if (req.url?.endsWith('/graphql') && req.method === 'POST') {
        const q = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
        const op = /(?:query|mutation)\s+(\w+)/.exec(q.query)?.[1] ?? '?';
        calls.push({ op, variables: q.variables ?? {} });
        out = answer(op, q.variables ?? {});
        if (out === null) unknown.push(`graphql ${op}`);
      } else unknown.push(`${req.method} ${req.url}`);
      res.statusCode = out === null ? 501 : 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(out ?? { message: 'the stand-in does not answer this' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    repo: `${owner}/${name}`,
    remoteUrl: `https://github.localhost/${owner}/${name}.git`,
    env: {
      GH_HOST: 'github.localhost',
      GH_TOKEN: 'stand-in-token',
      GH_CONFIG_DIR: o.configDir,
      HTTP_PROXY: `http://127.0.0.1:${port}`,
      HTTPS_PROXY: `http://127.0.0.1:${port}`,
      NO_PROXY: '',
    },
    prs,
    calls,
    unknown,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

function notFound(v: Record<string, unknown>) {
  return {
    data: { repository: null },
    errors: [
      {
        type: 'NOT_FOUND',
        message: `Could not resolve to a Repository with the name '${String(v['owner'])}/${String(v['name'] ?? v['repo'])}'.`,
      },
    ],
  };
}

/**
 * A repository whose origin is the stand-in's (what gh reads) with its pushes going to a real bare
 * repository (url.<bare>.pushInsteadOf): main pushed there.
 */
export function repoOnStandIn(hub: GitHubStandIn, repo: string, bare: string): void {
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' });
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
  git(repo, 'remote', 'add', 'origin', hub.remoteUrl);
  git(repo, 'config', `url.${bare}.pushInsteadOf`, hub.remoteUrl);
  git(repo, 'push', '-q', 'origin', 'main');
}
