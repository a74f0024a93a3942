// What the spend tests share: Claude Code transcript entries, and the report's spend as --json has it.

/** Claude Code's transcript entries of one API message: one per content block, each with the message's usage. */
export function claudeMessage(id: string, model: string, usage: Record<string, number>, blocks = 2): string {
  const out: string[] = [];
  for (let i = 0; i < blocks; i++)
    out.push(
      JSON.stringify({
        type: 'assistant',
        uuid: `${id}-${i}`,
        message: { id, model, role: 'assistant', content: [{ type: 'text', text: `part ${i}` }], usage },
      }),
    );
  return `${out.join('\n')}\n`;
}

export const four = (t: { input: number; output: number; cacheRead: number; cacheWrite: number }) => ({
  input: t.input,
  output: t.output,
  cacheRead: t.cacheRead,
  cacheWrite: t.cacheWrite,
});

export interface ReportSpend {
  spend: {
    total: { input: number; output: number; cacheRead: number; cacheWrite: number };
    costUsd: number;
    sessions: { session: string; agent: string; measured: boolean; costUsd: number | null; unpriced: string[] }[];
    prices: string | null;
  };
}
