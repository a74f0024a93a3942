import { DEFAULT_RECLAIM, DEFAULT_SHARED_FILES } from '../../src/core/config.js';
// The rules of lanes.toml and the user config, as the README's "Configuration" section states them,
// written as a model: which data is valid, and what two files merge to.
import type { LanesConfig } from '../../src/core/config.js';

type Data = Record<string, unknown>;

const isTable = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringsMatching = (v: unknown, re: RegExp) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string' && re.test(x));
const PLACEHOLDERS = ['repo', 'slug', 'session', 'ticket'];

function portsValid(t: Data): boolean {
  return Object.entries(t).every(([k, v]) => {
    if (k === 'names') return stringsMatching(v, /^[A-Za-z][A-Za-z0-9_]{0,31}$/);
    if (k !== 'range' || typeof v !== 'string') return false;
    const m = /^(\d{1,5})-(\d{1,5})$/.exec(v);
    return m !== null && Number(m[1]) >= 1024 && Number(m[1]) <= Number(m[2]) && Number(m[2]) <= 65535;
  });
}

function envValid(t: Data): boolean {
  return Object.entries(t).every(([k, v]) => {
    if (k === 'strip') return stringsMatching(v, /^[A-Za-z0-9_*?]+$/);
    // __proto__ is a valid name for a shell, but silently lost as a key of a JS object: refused.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || k === '__proto__' || typeof v !== 'string') return false;
    // lanes sets these itself (identity, private directories): no template may replace them.
    if (k.startsWith('LANES_') || k === 'TMPDIR') return false;
    // Placeholders among the four, and the fixed text around them letters, digits, _ . : - only.
    const known = [...v.matchAll(/\{([^}]*)\}/g)].every((m) => PLACEHOLDERS.includes(m[1] ?? ''));
    return known && /^[A-Za-z0-9_.:-]+$/.test(v.replace(/\{(repo|slug|session|ticket)\}/g, 'x'));
  });
}

/** Whether one file's data is valid; `[store]` and `[worktree]` only in the user's file. */
export function configValid(data: Data, user: boolean): boolean {
  return Object.entries(data).every(([k, v]) => {
    if (!isTable(v)) return false;
    if (k === 'ports') return portsValid(v);
    if (k === 'env') return envValid(v);
    if (k === 'snapshot') return Object.entries(v).every(([sk, sv]) => sk === 'on_stop' && typeof sv === 'boolean');
    if (k === 'worktree')
      return user && Object.entries(v).every(([wk, wv]) => wk === 'include_links_outside' && typeof wv === 'boolean');
    if (k === 'store')
      return user && Object.entries(v).every(([sk, sv]) => sk === 'url' && typeof sv === 'string' && sv.trim() !== '');
    return false;
  });
}

/** Valid files merged, repository first: the user's scalars win, lists and templates add up. */
export function configMerged(files: Data[]): LanesConfig {
  const c: LanesConfig = {
    ports: { names: [], range: { low: 20000, high: 29999 } },
    env: { templates: {}, strip: [] },
    snapshot: { onStop: false },
    worktree: { includeLinksOutside: false, reclaim: DEFAULT_RECLAIM },
    journal: { retentionMs: 30 * 86_400_000 },
    shared: { files: DEFAULT_SHARED_FILES },
    notify: {
      desktop: false,
      webhook: null,
      events: ['waiting', 'denied', 'died', 'exhausted', 'budget'],
      agentText: true,
    },
    budget: { graceMs: 30 * 60_000 },
    session: { setup: null, teardown: null, timeoutMs: 600_000 },
    seats: { onExhausted: 'next', defaultResetMs: 3_600_000, pools: {} },
    land: { check: null, strategy: 'rebase', timeoutMs: 1_800_000 },
  };
  const templates = new Map<string, string>();
  for (const f of files) {
    const ports = (f['ports'] ?? {}) as Data;
    const env = (f['env'] ?? {}) as Data;
    const snapshot = (f['snapshot'] ?? {}) as Data;
    for (const n of (ports['names'] ?? []) as string[]) if (!c.ports.names.includes(n)) c.ports.names.push(n);
    if (typeof ports['range'] === 'string') {
      const [low, high] = ports['range'].split('-').map(Number);
      c.ports.range = { low: low ?? 0, high: high ?? 0 };
    }
    for (const [k, v] of Object.entries(env)) if (k !== 'strip') templates.set(k, v as string);
    for (const s of (env['strip'] ?? []) as string[]) if (!c.env.strip.includes(s)) c.env.strip.push(s);
    if (typeof snapshot['on_stop'] === 'boolean') c.snapshot.onStop = snapshot['on_stop'];
    const links = ((f['worktree'] ?? {}) as Data)['include_links_outside'];
    if (typeof links === 'boolean') c.worktree = { ...c.worktree, includeLinksOutside: links };
  }
  c.env.templates = Object.fromEntries(templates);
  return c;
}
