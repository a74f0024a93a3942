import { LanesError } from '../../core/errors.js';
import { ghSaid, runGh } from './gh.js';

// A pull request's state and its checks, as `gh pr checks` shows them. Read with `gh pr view
// --json …statusCheckRollup`: the same check runs and commit statuses, as JSON in every gh since
// 2.x (`gh pr checks --json` came later; Debian's gh 2.23 has only its table).

export type ChecksState = 'passing' | 'failing' | 'pending' | 'none';

export interface PrState {
  /** OPEN, CLOSED or MERGED (GitHub's words). */
  state: string;
  draft: boolean;
  checks: ChecksState;
  passed: number;
  failed: string[];
  pending: string[];
}

const FAILED = new Set(['FAILURE', 'ERROR', 'TIMED_OUT', 'CANCELLED', 'ACTION_REQUIRED', 'STARTUP_FAILURE', 'STALE']);
const PASSED = new Set(['SUCCESS', 'NEUTRAL', 'SKIPPED']);

type Check = Record<string, unknown>;

/** One check run or commit status: passed, failed or pending (gh's own buckets). */
function bucket(c: Check): 'passed' | 'failed' | 'pending' {
  // A check run: status until COMPLETED, then its conclusion. A commit status: its state.
  const done = c['status'] === undefined || c['status'] === 'COMPLETED';
  const said = String(c['conclusion'] || c['state'] || '').toUpperCase();
  if (!done || said === 'PENDING' || said === 'EXPECTED' || said === '') return 'pending';
  if (FAILED.has(said)) return 'failed';
  return PASSED.has(said) ? 'passed' : 'failed';
}

export function prStateOf(json: Record<string, unknown>): PrState {
  const rollup = Array.isArray(json['statusCheckRollup']) ? (json['statusCheckRollup'] as Check[]) : [];
  const out: PrState = {
    state: String(json['state'] ?? 'UNKNOWN'),
    draft: json['isDraft'] === true,
    checks: 'none',
    passed: 0,
    failed: [],
    pending: [],
  };
  for (const c of rollup) {
    const name = String(c['name'] ?? c['context'] ?? '?');
    const b = bucket(c);
    if (b === 'passed') out.passed++;
    else out[b].push(name);
  }
  out.checks = out.failed.length ? 'failing' : out.pending.length ? 'pending' : out.passed ? 'passing' : 'none';
  return out;
}

/** `PR open, checks failing (test)`: the state in words. */
export function prStateText(s: PrState): string {
  const open = s.state === 'OPEN' ? (s.draft ? 'draft' : 'open') : s.state.toLowerCase();
  if (s.state !== 'OPEN') return open;
  const checks =
    s.checks === 'failing'
      ? `checks failing (${s.failed.join(', ')})`
      : s.checks === 'pending'
        ? `checks pending (${s.pending.length})`
        : s.checks === 'passing'
          ? `checks passing (${s.passed})`
          : 'no checks';
  return `${open}, ${checks}`;
}

export async function ghPrState(cwd: string, url: string, env?: NodeJS.ProcessEnv): Promise<PrState> {
  const r = await runGh(['pr', 'view', url, '--json', 'url,number,state,isDraft,statusCheckRollup'], {
    cwd,
    timeoutMs: 20_000,
    ...(env ? { env } : {}),
  });
  if (r.code !== 0) throw new LanesError('E_GH', `gh pr view ${url} failed: ${ghSaid(r)}`);
  try {
    return prStateOf(JSON.parse(r.stdout) as Record<string, unknown>);
  } catch {
    throw new LanesError('E_GH', `gh pr view ${url} said what lanes cannot read: ${r.stdout.slice(0, 200)}`);
  }
}
