import { closeSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeFailures } from '../../core/claude-failures.js';
import { codexFailures } from '../../core/codex-failures.js';
import { copilotFailures, copilotUsage } from '../../core/copilot-usage.js';
import type { CopilotSeen } from '../../core/copilot-usage.js';
import { noStreak } from '../../core/fail-streak.js';
import type { FailStreak } from '../../core/fail-streak.js';
import { geminiFailures } from '../../core/gemini-failures.js';
import { claudeUsage, withCarry } from '../../core/claude-usage.js';
import type { ClaudeCarry } from '../../core/claude-usage.js';
import { codexUsage } from '../../core/codex-usage.js';
import { geminiUsage, withOpen } from '../../core/gemini-usage.js';
import type { GeminiOpen } from '../../core/gemini-usage.js';
import type { CodexTotal } from '../../core/codex-usage.js';
import { makeDirsSync } from '../../core/make-dirs.js';
import { readOpencode } from './opencode-reader.js';
import { addUsage, noUsage } from '../../core/usage.js';
import type { Usage } from '../../core/usage.js';

// An agent's record read from where the last read stopped (issue 50, item 4: never the whole
// transcript per look). What was read so far is kept in a cache file per record under
// $LANES_HOME/spend (private): its size and offset, the tokens counted, the message still open.
// Two readers at once both read the same new part and both write the same result; the rename
// makes either whole. A record that shrank (rewritten) is read again from its start.

interface Cached {
  path: string;
  offset: number;
  usage: Usage;
  carry: ClaudeCarry | null;
  codex: CodexTotal | null;
  /** The same failing tool call in a row (a runaway's sign). */
  fails?: FailStreak;
  /** Gemini CLI: its recent messages, not yet counted (they may be written again). */
  gemini?: GeminiOpen[];
  /** Copilot CLI: the usage records counted (the last sequence of each source). */
  copilot?: CopilotSeen;
}

/** What a record says: the tokens and tool calls, and the failing call repeated now. */
export type RecordReading = Usage & { failing: { call: string; count: number } | null };

/** A piece at most this large is read at once: a 10 MB transcript seen first is read in steps. */
const CHUNK = 4 * 1024 * 1024;

export const SPEND_AGENTS = new Set(['claude-code', 'codex', 'gemini', 'copilot']);

/**
 * The cache file of a record: named by an FNV-1a hash of its path (two 32-bit halves), not a
 * cryptographic one: loading node:crypto cost ~5 ms of each budgeted hook call (bench/budget-hook).
 * Two paths that collide share a file; it names its record, so each is then read from its start.
 */
function cacheFile(dir: string, path: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ path.length;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c ^ (i & 0xff), 0x5bd1e995) >>> 0;
  }
  return join(dir, `${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}.json`);
}

function load(file: string, path: string): Cached {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Cached;
    if (c.path === path && typeof c.offset === 'number' && typeof c.usage?.toolCalls === 'number') return c;
  } catch {
    // none yet, or damaged: read again from the start
  }
  return { path, offset: 0, usage: noUsage(), carry: null, codex: null };
}

/** The tokens the record at `path` (an agent's transcript or rollout) says so far; null when it cannot be read. */
export function readRecordUsage(dir: string, agent: string, path: string): RecordReading | null {
  // OpenCode keeps running totals in its own database: one indexed read, nothing cached here.
  if (agent === 'opencode') return readOpencode(path);
  if (!SPEND_AGENTS.has(agent)) return null;
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return null;
  }
  const file = cacheFile(dir, path);
  let c = load(file, path);
  if (size < c.offset) c = { path, offset: 0, usage: noUsage(), carry: null, codex: null, fails: noStreak() };
  const start = c.offset;
  if (size > c.offset) {
    const fd = openSync(path, 'r');
    try {
      while (c.offset < size) {
        const buf = Buffer.alloc(Math.min(CHUNK, size - c.offset));
        const n = readSync(fd, buf, 0, buf.length, c.offset);
        const end = buf.lastIndexOf(0x0a, n - 1);
        // No whole line in a full chunk: a line longer than a chunk is skipped to its end.
        if (end < 0 && n < CHUNK) break;
        const upto = end < 0 ? n : end + 1;
        const lines = buf.subarray(0, upto).toString('utf8').split('\n');
        if (agent === 'gemini') {
          c.gemini = geminiUsage(lines, c.usage, c.gemini ?? []);
          c.fails = geminiFailures(lines, c.fails ?? noStreak());
        } else if (agent === 'copilot') {
          c.copilot = copilotUsage(lines, c.usage, c.copilot ?? {});
          c.fails = copilotFailures(lines, c.fails ?? noStreak());
        } else if (agent === 'claude-code') {
          c.carry = claudeUsage(lines, c.usage, c.carry);
          c.fails = claudeFailures(lines, c.fails ?? noStreak());
        } else {
          c.codex = codexUsage(lines, c.codex);
          c.fails = codexFailures(lines, c.fails ?? noStreak());
        }
        c.offset += upto;
      }
    } finally {
      closeSync(fd);
    }
  }
  if (c.offset !== start) {
    makeDirsSync(dir, 0o700);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(c), { mode: 0o600 });
    renameSync(tmp, file);
  }
  const failing = c.fails?.call ? { call: c.fails.call, count: c.fails.count } : null;
  if (agent === 'codex')
    return c.codex
      ? {
          ...c.codex.tokens,
          toolCalls: c.codex.toolCalls ?? 0,
          byModel: { [c.codex.model]: { ...c.codex.tokens } },
          failing,
        }
      : { ...noUsage(), failing };
  if (agent === 'gemini') return { ...withOpen(c.usage, c.gemini ?? []), failing };
  return { ...withCarry(c.usage, c.carry), failing };
}

/** What several records of one session say together; `measured`: at least one could be read. */
export function usageOfRecords(
  dir: string,
  records: readonly { agent: string; path: string }[],
): { usage: Usage; measured: boolean } {
  const usage = noUsage();
  let measured = false;
  for (const r of records) {
    const u = readRecordUsage(dir, r.agent, r.path);
    if (!u) continue;
    measured = true;
    addUsage(usage, u);
  }
  return { usage, measured };
}
