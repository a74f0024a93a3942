import { commandLines, gitArgs, simpleCommands } from '../commands.js';
import { builtPaths, sharedPath } from '../paths.js';
import type { Step } from '../step.js';
import type { Finding } from './finding.js';

// The next surfaces of the first incident's class (its author's list): a dev server's port fixed in
// a script (two sessions' servers collide), a dev database every run shares, a build cache at a
// fixed place outside the worktree, and writes to global config or credentials. The fixes: leased
// ports (`lanes port`), templated names (`{session}`), per-session caches, `file:` claims.

const DB_URL = /\b(postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis):\/\/[^\s'"`]*/i;
const SERVER =
  /^(vite|next|nuxt|serve|http-server|live-server|webpack(-dev-server)?|uvicorn|flask|rails|hugo|jekyll|astro|remix|storybook|start-storybook|json-server|php|ng|react-scripts|gatsby|parcel|docusaurus|wrangler|netlify|vercel)$/;

function ports(s: Step): string[] {
  const out: string[] = [];
  // A message that names a port (echo "open http://localhost:3000") starts nothing.
  if (
    s.lang === 'sh' &&
    simpleCommands(s.text).every((w) => /^(echo|printf|notify-send|logger|osascript|say|read)$/.test(w[0]!))
  )
    return [];
  if ((s.lang === 'py' || s.lang === 'js') && /^\s*(print|console\.\w+|logger\.\w+|log\.\w+)\(/.test(s.text)) return [];
  const runs = commandLines(s).flatMap((l) => simpleCommands(l));
  if (runs.length && runs.every((w) => /^(echo|printf|notify-send|logger|osascript|say)$/.test(w[0]!))) return [];
  const text = s.text.replace(DB_URL, '');
  const fixed = (n: string) =>
    Number(n) > 0 &&
    !/\$\{?PORT:?-|env(iron)?(\.get)?\W+["']?PORT|PORT\s*(\|\||\?\?|or)|getenv\(\s*["']PORT/i.test(text);
  for (const m of text.matchAll(
    /--port[= ](\d{2,5})\b|\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0):(\d{2,5})\b|\blisten\(\s*(\d{2,5})\b|\bport\s*=\s*(\d{2,5})\b|(?:^|\s)PORT=(\d{2,5})\b|http\.server\s+(\d{2,5})\b/g,
  )) {
    const n = m.slice(1).find(Boolean)!;
    if (fixed(n)) out.push(n);
  }
  if (s.lang === 'sh')
    for (const w of simpleCommands(s.text)) {
      // docker run -p 5432:5432: a host port fixed for every run.
      const publish = w[0] === 'docker' || w[0] === 'podman' ? w.findIndex((x) => x === '-p' || x === '--publish') : -1;
      const hostPort = publish > 0 ? /^(?:[\d.]+:)?(\d{2,5}):\d+/.exec(w[publish + 1] ?? '') : null;
      if (hostPort && fixed(hostPort[1]!)) out.push(hostPort[1]!);
      const head = w[0]!.split('/').pop()!;
      const server = SERVER.test(head) || (['npx', 'pnpm', 'yarn', 'bunx'].includes(head) && SERVER.test(w[1] ?? ''));
      const p = w.findIndex((x) => x === '-p');
      if (server && p > 0 && /^\d{2,5}$/.test(w[p + 1] ?? '') && fixed(w[p + 1]!)) out.push(w[p + 1]!);
    }
  return [...new Set(out)];
}

function databases(s: Step): string[] {
  const out: string[] = [];
  const url = DB_URL.exec(s.text);
  if (url) {
    const name = /\/([\w-]+)(?:\?|$)/.exec(url[0].replace(/^[a-z+]+:\/\/[^/]*/i, ''))?.[1];
    if (name && !/[${}]/.test(url[0])) out.push(name);
  }
  for (const line of commandLines(s))
    for (const w of simpleCommands(line)) {
      const head = w[0]!.split('/').pop()!;
      // Their database: the first word that is neither an option nor a redirection.
      const named = w.slice(1).find((x) => !x.startsWith('-') && !/^\d?[<>]/.test(x));
      if ((head === 'createdb' || head === 'dropdb') && named) out.push(named);
      const d = w.findIndex((x) => x === '-d' || x === '--dbname');
      if (['psql', 'pg_dump', 'pg_restore', 'mysql'].includes(head) && d > 0 && w[d + 1]) out.push(w[d + 1]!);
    }
  for (const m of s.text.matchAll(/\bdbname\s*=\s*["']?([\w-]+)/g)) out.push(m[1]!);
  for (const m of s.text.matchAll(/CREATE DATABASE\s+(?:IF NOT EXISTS\s+)?["`]?([\w-]+)/gi)) out.push(m[1]!);
  // A database every server has (postgres, template1), or a number (redis://…/0), is no dev database.
  return [...new Set(out.filter((n) => !/[${}]/.test(n) && !SYSTEM_DBS.has(n) && !/^\d+$/.test(n)))];
}

const SYSTEM_DBS = new Set([
  'postgres',
  'template0',
  'template1',
  'mysql',
  'information_schema',
  'admin',
  'local',
  'test',
]);

const CACHE_VARS =
  /\b(TURBO_CACHE_DIR|PYTEST_CACHE_DIR|GOCACHE|GOMODCACHE|npm_config_cache|NPM_CONFIG_CACHE|CCACHE_DIR|SCCACHE_DIR|NX_CACHE_DIRECTORY|PIP_CACHE_DIR|YARN_CACHE_FOLDER|BUN_INSTALL_CACHE_DIR|GRADLE_USER_HOME|CARGO_TARGET_DIR|VITE_CACHE_DIR|JEST_CACHE_DIR)=(\S+)/g;

function caches(s: Step): string[] {
  const out: string[] = [];
  for (const m of s.text.matchAll(CACHE_VARS)) if (sharedPath(m[2]!)) out.push(m[1]!);
  for (const m of s.text.matchAll(
    /(?:--cache-dir|--cache-folder|--cacheDirectory|cache_dir|cacheDirectory|cacheDir)["']?\s*[=: ]\s*["']?([^\s"',)]+)/g,
  ))
    if (sharedPath(m[1]!)) out.push(m[1]!);
  return out;
}

const CREDENTIALS =
  /^~\/(\.npmrc|\.gitconfig|\.aws\/(credentials|config)|\.ssh\/config|\.netrc|\.docker\/config\.json|\.pypirc|\.yarnrc|\.config\/gh\/hosts\.yml|\.config\/git\/config)$/;
const READS = new Set(['--get', '--get-all', '--get-regexp', '--list', '-l', '--show-origin', '--get-urlmatch']);

function globalWrites(s: Step): string[] {
  const out: string[] = [];
  for (const line of commandLines(s))
    for (const w of simpleCommands(line)) {
      const g = gitArgs(w);
      if (
        g?.[0] === 'config' &&
        (g.includes('--global') || g.includes('--system')) &&
        !g.some((x) => READS.has(x)) &&
        g.filter((x) => !x.startsWith('-')).length >= 3
      )
        out.push(`git config ${g.includes('--global') ? '--global' : '--system'}`);
      const head = w[0]!.split('/').pop()!;
      if (
        ['npm', 'pnpm', 'yarn', 'pip', 'pip3'].includes(head) &&
        w[1] === 'config' &&
        w[2] === 'set' &&
        !w.some((x) => /project|--site/.test(x))
      )
        out.push(`${head} config set`);
      if (head === 'gh' && w[1] === 'auth' && ['login', 'setup-git'].includes(w[2] ?? '')) out.push(`gh auth ${w[2]}`);
      w.forEach((x, i) => {
        const target =
          /^\d?>>?$/.test(w[i - 1] ?? '') || head === 'tee' ? x : /^\d?>>?./.test(x) ? x.replace(/^\d?>>?/, '') : null;
        const p = target ? sharedPath(target) : null;
        if (p && CREDENTIALS.test(p)) out.push(p);
      });
    }
  if (s.lang === 'py' || s.lang === 'js')
    if (/open\([^)]*,\s*["'][wa]|write(File|FileSync)\(|appendFile(Sync)?\(|\.write_text\(/.test(s.text))
      for (const p of [...s.strings.map((v) => sharedPath(v)), ...builtPaths(s.text)])
        if (p && CREDENTIALS.test(p)) out.push(p);
  return out;
}

/**
 * A Python or JavaScript statement whose ports and database names are used, not only written down
 * (an example in a help text, a URL in an error message): it runs a command, listens, connects, or
 * sets the environment its children get.
 */
const ACTS =
  /\b(listen|connect|createServer|serve|run|Pool|Client|createClient|create_engine|spawn|spawnSync|exec|execSync|execFileSync|system|environ|setdefault)\s*[([]|process\.env\.\w+\s*=[^=]|\$`/;

export function surfaces(steps: Step[]): Finding[] {
  const out: Finding[] = [];
  for (const s of steps) {
    if (s.lang === 'prose') continue;
    const at = { file: s.file, line: s.line };
    for (const g of globalWrites(s)) out.push({ check: 'global-config-write', ...at, what: g });
    if ((s.lang === 'py' || s.lang === 'js') && !ACTS.test(s.text)) continue;
    for (const p of ports(s)) out.push({ check: 'hard-coded-port', ...at, what: `port ${p}` });
    for (const d of databases(s)) out.push({ check: 'shared-dev-database', ...at, what: `database ${d}` });
    for (const c of caches(s)) out.push({ check: 'shared-build-cache', ...at, what: c });
  }
  return out;
}
