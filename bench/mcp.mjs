// bench/mcp: one `lanes mcp` tool call, at 10 and at 5,000 sessions, through the MCP SDK's own
// client over stdio (started by test/fixtures/fake-agent.mjs as an agent starts it, after its
// session-start hook), and the server's memory over many calls. Each store is filled through the
// store API (bench/scale-seed.ts). Calls alternate whoami and check (a store read and a claim
// lookup). With --old CLI (another build's dist/cli.cjs), the same calls against it, interleaved
// store by store, and the ratio old/new.
// Usage: node bench/mcp.mjs [--calls 400] [--mem-calls 10000] [--old /path/to/dist/cli.cjs]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const argv = process.argv;
const opt = (name, dflt) => (argv.indexOf(name) > 0 ? argv[argv.indexOf(name) + 1] : dflt);
const CALLS = Number(opt('--calls', 400));
const MEM_CALLS = Number(opt('--mem-calls', 10000));
const OLD = opt('--old', '');
const NEW = join(ROOT, 'dist', 'cli.cjs');
const FAKE_AGENT = join(ROOT, 'test', 'fixtures', 'fake-agent.mjs');
const env = { ...process.env, NO_COLOR: '1', LANES_GC_AFTER_MS: 'off' };
for (const k of ['LANES_SESSION', 'LANES_STORE', 'LANES_HOME']) delete env[k];

const STORES = [
  { name: '10 sessions', live: 9, dead: 1, ended: 0 },
  { name: '5,000 sessions (4,991 dead)', live: 9, dead: 4991, ended: 0 },
  { name: '5,000 sessions (4,991 ended)', live: 9, dead: 0, ended: 4991 },
  { name: '5,000 live sessions', live: 4999, dead: 1, ended: 0 },
];

function world(store) {
  const dir = scratch('lanes-bench-mcp-');
  const repo = join(dir, 'repo');
  execFileSync('bash', ['-c', `git init -q -b main ${repo} && git -C ${repo} commit -q --allow-empty -m i`]);
  const home = join(dir, 'home');
  execFileSync('mkdir', ['-p', home]);
  const spec = {
    ...store,
    claims: 100,
    repo: join(repo, '.git'),
    worktree: repo,
    ownerPid: process.pid,
    dirs: 10,
  };
  execFileSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench', 'scale-seed.ts'), join(home, 'lanes.db'), JSON.stringify(spec)],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return { repo, home };
}

async function connect(cli, w) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FAKE_AGENT, 'bench-mcp-agent', w.repo],
    env: { ...env, LANES_HOME: w.home, LANES_CLI: cli },
    cwd: w.repo,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'lanes-bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const call = (client, i) =>
  client.callTool(
    i % 2 ? { name: 'check', arguments: { resource: 'path:pkg0/f0.ts' } } : { name: 'whoami', arguments: {} },
    undefined,
    { timeout: 60_000 },
  );

/** The `lanes mcp` process: the fake agent's child. */
function serverPid(agentPid) {
  return Number(
    execFileSync('pgrep', ['-P', String(agentPid)], { encoding: 'utf8' })
      .trim()
      .split('\n')[0],
  );
}
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

async function timeCalls(client, n) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await call(client, i);
    ms.push(performance.now() - t);
    if (r.isError) throw new Error(`tool call failed: ${JSON.stringify(r.content)}`);
  }
  return ms.sort((a, b) => a - b);
}

const rows = [];
const med = {};
for (const store of STORES) {
  const builds = OLD
    ? [
        ['new', NEW],
        ['old', OLD],
      ]
    : [['new', NEW]];
  for (const [label, cli] of builds) {
    const w = world(store);
    const { client, transport } = await connect(cli, w);
    await timeCalls(client, 20); // warm-up: the first call finds the session
    const ms = await timeCalls(client, CALLS);
    med[`${store.name}/${label}`] = percentile(ms, 50);
    rows.push([store.name, label, percentile(ms, 50).toFixed(2), percentile(ms, 90).toFixed(2), ms.at(-1).toFixed(1)]);
    await client.close();
    void transport;
  }
}
console.log(`lanes mcp tool call (whoami / check alternating), ${CALLS} calls each, ms:`);
console.log(table(['store', 'build', 'median', 'p90', 'max'], rows));
for (const label of OLD ? ['new', 'old'] : ['new'])
  console.log(
    `${label}: against 10 sessions, ` +
      STORES.slice(1)
        .map((s) => `${s.name} ${(med[`${s.name}/${label}`] / med[`${STORES[0].name}/${label}`]).toFixed(2)}×`)
        .join(', '),
  );
if (OLD)
  for (const s of STORES)
    console.log(`${s.name}: old/new ${(med[`${s.name}/old`] / med[`${s.name}/new`]).toFixed(2)}×`);

// Memory: the server's resident size after warm-up and along MEM_CALLS calls (5,000 dead sessions).
if (MEM_CALLS > 0) {
  const w = world(STORES[1]);
  const { client, transport } = await connect(NEW, w);
  await timeCalls(client, 100);
  const pid = serverPid(transport.pid);
  const marks = [[100, rssMiB(pid)]];
  for (let done = 100; done < MEM_CALLS;) {
    const step = Math.min(MEM_CALLS - done, Math.max(100, Math.floor(MEM_CALLS / 10)));
    for (let i = 0; i < step; i++) await call(client, i);
    done += step;
    marks.push([done, rssMiB(pid)]);
  }
  await client.close();
  console.log(`\nlanes mcp resident memory over ${MEM_CALLS} calls (5,000 sessions), MiB:`);
  console.log(
    table(
      ['calls', 'RSS MiB'],
      marks.map(([c, m]) => [c, m.toFixed(1)]),
    ),
  );
}
