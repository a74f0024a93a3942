import { writeSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { record, text } from '../../agents/adapter.js';
import { EXIT } from '../../core/errors.js';
import type { SessionGlance } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { readStdinJson } from '../stdin-json.js';

// Claude Code runs its statusLine command after every message with a JSON object on stdin
// (session_id, cwd, workspace.current_dir, model, …) and shows the first line it prints. This one
// reads the store only (no git process, no write): what the hooks recorded. A hot command
// (dist/hot.cjs): bench/statusline.mjs holds it to 1.3x a bare `node -e 0`.

const MAX_PATHS = 2;

export const command: CommandSpec = {
  name: 'statusline',
  summary: "One status line for Claude Code's statusLine: this session, its ticket and claims, who else works here.",
  usage: 'statusline < claude-code-status.json',
  description: [
    'Reads the JSON Claude Code pipes to its statusLine command and prints one line: the lanes session',
    'of that Claude Code session, its ticket, its claims, how many other live sessions share the',
    'repository, and a warning when one of them edited a file this one edited, or works on the same',
    'ticket, and which other sessions wait for you (a permission prompt, a question). Store reads only. Always exits 0 (a status line has no error channel but its text).',
    'Installed by `lanes hooks install claude-code --statusline`.',
  ].join('\n'),
  options: {},
  maxPositionals: 0,
  async run(_args, io) {
    let line: string;
    try {
      const payload = readStdinJson();
      const id = text(payload, 'session_id');
      if (!id) throw new Error('no session_id in the status JSON');
      const workspace = record(payload['workspace']);
      const cwd = text(workspace, 'current_dir') ?? text(payload, 'cwd');
      const lanes = await io.lanes({
        session: null,
        notice: false,
        ...(cwd && isAbsolute(cwd) ? { cwd } : {}),
      });
      const g = await lanes.sessions.glance(`claude-code:${id}`);
      line = g ? statusLine(g) : 'lanes: no session (lanes hooks install claude-code)';
    } catch (e) {
      line = `lanes: ${(e as Error).message}`.slice(0, 120);
    }
    // Always one line: an error may quote input with its line breaks.
    writeSync(1, line.replace(/\s+/g, ' ').trim() + '\n');
    return EXIT.ok;
  },
};

/** One line; ⚠ marks what needs the person's attention. */
export function statusLine(g: SessionGlance): string {
  const s = g.session;
  const parts = [`lanes ${short(s.id)}`];
  if (s.ticket) parts.push(s.ticket);
  // The ticket's own claim is the ticket already shown.
  const claims = g.claims.filter((c) => !(c.kind === 'ticket' && c.name === s.ticket));
  if (claims.length) parts.push(`claims ${claims.map((c) => `${c.kind}:${c.name}`).join(' ')}`);
  parts.push(g.others === 0 ? 'alone here' : `${g.others} other session${g.others === 1 ? '' : 's'}`);
  for (const o of g.overlaps) {
    const more = o.paths.length > MAX_PATHS ? ` +${o.paths.length - MAX_PATHS}` : '';
    parts.push(`⚠ ${o.paths.slice(0, MAX_PATHS).join(', ')}${more} also edited by ${short(o.session)}`);
  }
  if (g.sameTicket.length) parts.push(`⚠ ${s.ticket} also worked on by ${g.sameTicket.map(short).join(', ')}`);
  if (g.waiting.length)
    parts.push(
      `⚠ ${g.waiting.length === 1 ? `${short(g.waiting[0]!)} waits` : `${g.waiting.length} others wait`} for you`,
    );
  return parts.join(' · ');
}

/** `claude-code:0f3a9c1e-…` → `claude-code:0f3a9c1e`: enough to tell sessions apart in a line. */
function short(id: string): string {
  const colon = id.indexOf(':');
  return colon < 0 ? id.slice(0, 12) : id.slice(0, colon + 9);
}
