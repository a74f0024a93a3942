// A run of the same failing tool call in a Claude Code transcript (issue 50, item 3: a runaway):
// an assistant entry's tool_use block (its name and input), then the user entry's tool_result for
// its id with is_error true. The streak is the number of times in a row the last failing call
// failed with the same name and input; a call that succeeds, or another failing call, ends it.
// Read in pieces like the usage (services/spend/record-reader.ts): `streak` carries over.

export interface FailStreak {
  /** Tool calls asked and not answered yet: [id, signature], the last few. */
  pending: [string, string][];
  /** The call failing now (`Bash {"command":"npm test"}`), or null. */
  call: string | null;
  count: number;
}

export const noStreak = (): FailStreak => ({ pending: [], call: null, count: 0 });

const PENDING = 64;
const SIGNATURE = 300;

type Block = {
  type?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  is_error?: unknown;
};

export function claudeFailures(lines: string[], streak: FailStreak): FailStreak {
  const s: FailStreak = { pending: [...streak.pending], call: streak.call, count: streak.count };
  for (const line of lines) {
    if (!line.includes('"tool_use"') && !line.includes('"tool_result"')) continue;
    let e: { type?: unknown; message?: { content?: unknown } };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      continue;
    }
    const blocks = Array.isArray(e.message?.content) ? (e.message.content as Block[]) : [];
    for (const b of blocks) {
      if (e.type === 'assistant' && b?.type === 'tool_use' && typeof b.id === 'string') {
        const sig = `${String(b.name)} ${JSON.stringify(b.input ?? {})}`.slice(0, SIGNATURE);
        s.pending.push([b.id, sig]);
        if (s.pending.length > PENDING) s.pending.shift();
      }
      if (e.type === 'user' && b?.type === 'tool_result' && typeof b.tool_use_id === 'string') {
        const at = s.pending.findIndex(([id]) => id === b.tool_use_id);
        if (at < 0) continue;
        const sig = s.pending[at]![1];
        s.pending.splice(at, 1);
        if (b.is_error !== true) {
          s.call = null;
          s.count = 0;
        } else if (s.call === sig) s.count++;
        else {
          s.call = sig;
          s.count = 1;
        }
      }
    }
  }
  return s;
}
