import * as z from 'zod';
import { defineTool, plain } from './tool.js';
import { LanesError, describeSnapshot } from '../index.js';

// The tools around the work itself: overlaps with other sessions, handoffs, commits, snapshots.

export const conflicts = defineTool({
  name: 'conflicts',
  title: 'Predict conflicts',
  description:
    'Predicts conflicts between the live sessions of this repository (files both changed, textual conflicts git predicts, sessions on the same ticket) and with the target branch (a competing change landed). Run it before landing, or when warned that another session edits the same files.',
  input: { against: z.string().optional().describe('target branch (default: the main branch)') },
  output: {
    found: z.boolean(),
    target: z.string(),
    pairs: z.array(z.looseObject({ a: z.string(), b: z.string(), both: z.array(z.string()) })),
  },
  readOnly: true,
  async run(call, args) {
    const r = await call.lanes.conflicts(args.against ? { against: args.against } : {});
    const lines = [
      ...r.pairs.map(
        (p) =>
          `${p.a} and ${p.b} both changed ${p.both.join(', ')}${p.conflicts.length ? `; conflicts predicted in ${p.conflicts.join(', ')}` : ''}`,
      ),
      ...r.sameTicket.map((t) => `ticket ${t.ticket} is worked on by ${t.sessions.join(', ')}`),
      ...r.competing.map(
        (c) => `${c.session}: ${c.target} also changed ${c.files.join(', ')} (a competing change landed)`,
      ),
    ];
    return {
      data: plain(r) as unknown as Record<string, unknown>,
      text: r.found ? lines.join('\n') : 'no conflicts found',
    };
  },
});

const nameInput = z
  .string()
  .min(1)
  .max(128)
  .describe('handoff name: letters, digits, . _ - (not starting with a dot), e.g. "meta.json"');

/**
 * Base64 as written (standard alphabet, padded; line breaks allowed), or E_USAGE: Node's decoder
 * skips what it does not know, which would store garbage and report success.
 */
export function strictBase64(text: string): Buffer {
  const clean = text.replace(/[\r\n\t ]/g, '');
  const bad = clean.search(/[^A-Za-z0-9+/=]/);
  const bytes = Buffer.from(clean, 'base64');
  if (bad !== -1 || clean.length % 4 !== 0 || !/^[^=]*={0,2}$/.test(clean) || bytes.toString('base64') !== clean)
    throw new LanesError(
      'E_USAGE',
      `content is not valid base64${bad !== -1 ? ` (${JSON.stringify(clean[bad])} at character ${bad + 1})` : clean.length % 4 ? ' (its length is not a multiple of 4)' : ' (bad padding)'}; nothing was written`,
      { hint: 'send the bytes as standard, padded base64, or send text as it is with base64 false' },
    );
  return bytes;
}

export const handoffPut = defineTool({
  name: 'handoff_put',
  title: 'Write a handoff',
  description:
    "Write a handoff: a file in your session's private directory, stamped with your session's identity and a checksum, written atomically. Another session reads it with handoff_get and lanes proves it was you who wrote it.",
  input: {
    name: nameInput,
    content: z.string().describe('the payload'),
    base64: z.boolean().optional().describe('content is base64 (binary payloads)'),
  },
  output: { path: z.string(), session: z.string(), seq: z.number(), size: z.number(), sha256: z.string() },
  readOnly: false,
  async run(call, args) {
    const payload = args.base64 ? strictBase64(args.content) : args.content;
    const w = await call.lanes.handoffs.put(args.name, payload, { session: call.session });
    return {
      data: plain(w) as unknown as Record<string, unknown>,
      text: `wrote handoff ${args.name} (${w.size} bytes, seq ${w.seq})`,
    };
  },
});

/** Up to this size a text handoff is also the tool's text answer. */
const TEXT_COPY_MAX = 1024 * 1024;

export const handoffGet = defineTool({
  name: 'handoff_get',
  title: 'Read a handoff',
  description:
    'Read a handoff your session wrote, or one of another session (from), after proving its writer and checksum. A handoff written by anyone else than the expected session fails with E_WRONG_OWNER; a torn or altered one with E_INTEGRITY.',
  input: { name: nameInput, from: z.string().optional().describe('the session that wrote it (default: you)') },
  output: {
    content: z.string(),
    base64: z.boolean(),
    header: z.looseObject({ session: z.string(), seq: z.number(), sha256: z.string() }),
  },
  readOnly: true,
  async run(call, args) {
    const e = await call.lanes.handoffs.get(args.name, {
      session: call.session,
      ...(args.from ? { from: args.from } : {}),
    });
    const text = e.payload.toString('utf8');
    const isText = Buffer.from(text, 'utf8').equals(e.payload);
    return {
      data: { content: isText ? text : e.payload.toString('base64'), base64: !isText, header: plain(e.header) },
      // The payload once, not twice: a large one in both would pass the client's own message limit.
      text:
        isText && e.payload.length <= TEXT_COPY_MAX
          ? text
          : `(${isText ? 'text' : 'binary'} handoff of ${e.payload.length} bytes${isText ? '' : ', base64'}: the content is in the structured content)`,
    };
  },
});

export const commit = defineTool({
  name: 'commit',
  title: 'Commit named paths',
  description:
    "Commit exactly the named files or directories (additions, changes, deletions) onto your worktree's branch and nothing else: what other sessions staged in a shared worktree stays out. Refused (E_CLAIM_HELD) when another live session claimed one of the paths. Use it instead of git add/git commit.",
  input: {
    paths: z.array(z.string().min(1)).min(1).describe('paths relative to your worktree root (or absolute)'),
    message: z.string().min(1).describe('the commit message'),
  },
  output: {
    branch: z.string(),
    commit: z.string(),
    files: z.array(z.looseObject({ status: z.string(), path: z.string() })),
  },
  readOnly: false,
  async run(call, args) {
    const r = await call.lanes.commit(args.paths, args.message);
    return {
      data: plain(r) as unknown as Record<string, unknown>,
      text: `committed ${r.files.length} file(s) on ${r.branch} as ${r.commit.slice(0, 12)}: ${r.files.map((f) => `${f.status} ${f.path}`).join(', ')}`,
    };
  },
});

export const snapshot = defineTool({
  name: 'snapshot',
  title: 'Snapshot your work',
  description:
    "Save your worktree's whole uncommitted state (changes, deletions, new files) to a private ref, without touching files, index or branches. Nothing is published. No new snapshot when nothing changed since the last one.",
  input: {},
  output: {
    created: z.boolean(),
    files: z.number(),
    snapshot: z.looseObject({ ref: z.string(), commit: z.string() }).nullable(),
    skipped: z.array(z.object({ path: z.string(), why: z.string() })),
  },
  readOnly: false,
  async run(call) {
    const r = await call.lanes.snapshots.snapshot({ session: call.session, why: 'lanes mcp snapshot' });
    return {
      data: plain(r) as unknown as Record<string, unknown>,
      text: describeSnapshot(r),
    };
  },
});

export const ready = defineTool({
  name: 'ready',
  title: 'Mark your work ready to land',
  description:
    "Put your session in the repository's landing queue once its work is committed on your branch: a person's `lanes land --queue` then brings it onto the main branch's tip, runs the repository's check and lands it, in the order sessions became ready. Commit first (the commit tool): uncommitted changes stop it. undo: true takes it out again.",
  input: { undo: z.boolean().optional().describe('take your session out of the queue') },
  output: {
    session: z.string(),
    branch: z.string(),
    tip: z.string(),
    position: z.number().nullable(),
    already: z.boolean(),
  },
  readOnly: false,
  async run(call, args) {
    const r = await call.lanes.queue.ready(call.session, args.undo ? { undo: true } : {});
    return {
      data: plain(r) as unknown as Record<string, unknown>,
      text:
        r.position === null
          ? `${r.session} left the landing queue`
          : `${r.session} ${r.already ? 'was already' : 'is'} ready to land (${r.branch} at ${r.tip.slice(0, 12)}), number ${r.position} in line`,
    };
  },
});
