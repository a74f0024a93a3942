// Tokens an agent's model used, as its own record says (issue 50, item 1). `input` is what was
// sent and not read from a cache; `cacheRead` what was read from one; `cacheWrite` what was
// written to one (Claude's cache_creation_input_tokens; Codex's cache_write_input_tokens).

export interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Tokens in all, and per model (what a price applies to); the tool calls its model asked for. */
export interface Usage extends Tokens {
  byModel: Record<string, Tokens>;
  toolCalls: number;
}

export const noTokens = (): Tokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
export const noUsage = (): Usage => ({ ...noTokens(), byModel: {}, toolCalls: 0 });

export function addTokens(to: Tokens, t: Tokens): void {
  to.input += t.input;
  to.output += t.output;
  to.cacheRead += t.cacheRead;
  to.cacheWrite += t.cacheWrite;
}

export function addUsage(to: Usage, u: Usage): void {
  addTokens(to, u);
  to.toolCalls += u.toolCalls ?? 0;
  for (const [m, t] of Object.entries(u.byModel)) addTokens((to.byModel[m] ??= noTokens()), t);
}

export const totalTokens = (t: Tokens): number => t.input + t.output + t.cacheRead + t.cacheWrite;

/** A count from a record: a finite, non-negative number, else 0 (a record is the agent's, not ours). */
export const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
