import { basename } from 'node:path';
import { resumeCommand } from '../core/agent-logins.js';
import { LanesError } from '../core/errors.js';
import { describeLeft, leftWork } from '../index.js';
import type { Lanes, Predecessor } from '../index.js';
import { load } from '../core/builtins.js';
import type * as ReadlinePromises from 'node:readline/promises';

// A ticket can go on (issue 45, item 4). `lanes new T` (and up) when T's last session died or
// ended with work left (a kept worktree, uncommitted files, a branch ahead, a snapshot) says so and
// needs a choice: --resume goes on in its worktree and branch (made again from its branch and last
// snapshot when gc removed it) with its conversation where the agent can resume one; --fresh starts
// anew and says where the old work stays. On a terminal lanes asks; elsewhere it refuses (exit 2).

export type GoOn = 'resume' | 'fresh';

export interface GoingOn {
  how: GoOn | null;
  predecessor: Predecessor | null;
}

/** What to do about T's predecessor: the flag given, else the person's answer, else a refusal naming both. */
export async function decideGoOn(
  lanes: Lanes,
  ticket: string,
  given: GoOn | null,
  ask: ((question: string) => Promise<GoOn | null>) | null,
): Promise<GoingOn> {
  const p = await lanes.sessions.predecessor(ticket);
  if (!p || !leftWork(p)) {
    if (given === 'resume')
      throw new LanesError(
        'E_USAGE',
        `nothing to resume for ${ticket}: ${p ? describeLeft(p) : 'no earlier session of it'}`,
        {
          hint: `start it with lanes new ${ticket}`,
        },
      );
    return { how: null, predecessor: p };
  }
  const what = describeLeft(p);
  const how =
    given ?? (ask ? await ask(`${what}.\nGo on with its work (r), start anew beside it (f), or stop (q)? `) : null);
  if (!how)
    throw new LanesError('E_USAGE', `${what}: say whether to go on with it or start anew`, {
      hint: `lanes new ${ticket} --resume (its worktree, branch${p.session.conversation ? ' and conversation' : ''}), or --fresh (a new worktree; the old work stays where it is)`,
    });
  return { how, predecessor: p };
}

/** Where the resumed session works, its branch, and the agent's command (its conversation resumed where it can be). */
export async function prepareResume(
  lanes: Lanes,
  p: Predecessor,
  agent: string | null,
  cmd: string[],
): Promise<{ path: string; branch: string; slug: string; cmd: string[]; notes: string[] }> {
  // A dead predecessor is ended first (its work snapshotted, its claims released): the new session goes on.
  if (p.session.endedAt === null)
    await lanes.sessions.end(p.session.id, { reason: 'went on in a new session (lanes new --resume)' });
  const place = await lanes.sessions.resumeWorktree(p);
  const notes = [...place.notes];
  const conv = p.session.conversation;
  const at = conv?.indexOf(':') ?? -1;
  let run = cmd;
  if (conv && at > 0 && conv.slice(0, at) === agent) {
    const resumed = resumeCommand(agent, cmd, conv.slice(at + 1));
    if (resumed) {
      run = resumed;
      notes.push(`its conversation ${conv.slice(at + 1)} resumed`);
    }
  }
  if (run === cmd && conv) notes.push(`the agent starts afresh (${agent ?? 'it'} cannot resume conversation ${conv})`);
  const branch = (p.branch ?? '').replace(/^refs\/heads\//, '');
  return { path: place.path, branch, slug: basename(place.path), cmd: run, notes };
}

/** Where the old work stays when a ticket starts anew beside it. */
export function freshNote(p: Predecessor): string {
  return `started anew; ${describeLeft(p).replace(/; it left /, ', whose work stays: ')}`;
}

/** On a terminal: asks the person (r, f or q) on stderr, reading stdin. Null where there is none to ask. */
export function askOnTerminal(): ((question: string) => Promise<GoOn | null>) | null {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return null;
  return async (question) => {
    // Loaded as a built-in, not import(): the bundle runs in a vm.Script (core/code-cache.ts), which has no
    // dynamic import ("A dynamic import callback was not specified"); scripts/build.mjs checks none is left.
    const { createInterface } = load('node:readline/promises') as typeof ReadlinePromises;
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const a = (await rl.question(question)).trim().toLowerCase();
      return a.startsWith('r') ? 'resume' : a.startsWith('f') ? 'fresh' : null;
    } finally {
      rl.close();
    }
  };
}
