import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDuration } from '../../core/duration.js';
import { EXIT } from '../../core/errors.js';
import { lanesHome } from '../../core/paths.js';
import { nightReport } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { usageError } from '../command.js';
import { terminalWidth } from '../layout.js';
import { printJson } from '../output.js';
import { renderReport } from '../report-text.js';
import { makeDirsSync } from '../../core/make-dirs.js';

export const command: CommandSpec = {
  name: 'report',
  summary:
    'The night in one read: what landed, was refused or denied, who died and what they left, what collided, and what needs you.',
  usage: 'report [--since DURATION | --since-last] [--markdown] [--json]',
  description:
    'Per repository and ticket: the sessions (label, agent, host), what landed and was committed, what was refused or denied and why, sessions that died and what they left uncommitted (with a restore command run from the main worktree), shared worktrees, one ticket in several live sessions, and waits still open. "Needs you" at the top lists what to settle, each with its command. Built from the journal and the live store. --since-last reports what came after the last report read (text or Markdown) with this store.',
  options: {
    since: { type: 'string', arg: 'DURATION', help: 'the last DURATION (30m, 12h, 7d; default 12h)' },
    'since-last': { type: 'boolean', help: 'what came after the last report this user read' },
    markdown: { type: 'boolean', help: 'Markdown, for pasting into a ticket' },
  },
  maxPositionals: 0,
  examples: ['lanes report', 'lanes report --since 3d --markdown > night.md', 'lanes report --since-last'],
  async run(args, io) {
    const sinceText = args.values['since'];
    const sinceLast = args.values['since-last'] === true;
    if (typeof sinceText === 'string' && sinceLast)
      throw usageError(this, '--since and --since-last exclude each other');
    const lanes = await io.lanes();
    const marks = join(lanesHome(), 'report-read.json');
    const read = readMarks(marks);
    const store = lanes.storeInfo.location;
    const now = await lanes.now();
    const report = await nightReport(lanes, {
      ...(typeof sinceText === 'string' ? { since: now - parseDuration(sinceText, '--since') } : {}),
      ...(sinceLast && read[store] !== undefined ? { afterSeq: read[store] } : {}),
    });
    if (io.json) {
      printJson(io.stdout, report);
      return EXIT.ok;
    }
    io.stdout(renderReport(report, { markdown: args.values['markdown'] === true, width: terminalWidth() }));
    // Read by a person: the next --since-last starts after it.
    if (report.lastSeq !== null) writeMarks(marks, { ...read, [store]: report.lastSeq });
    return EXIT.ok;
  },
};

function readMarks(file: string): Record<string, number> {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, number>) : {};
  } catch {
    return {};
  }
}

function writeMarks(file: string, marks: Record<string, number>): void {
  try {
    makeDirsSync(join(file, '..'), 0o700);
    writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(marks) + '\n', { mode: 0o600 });
    renameSync(`${file}.${process.pid}.tmp`, file);
  } catch {
    // A read-only home: the next --since-last repeats this report, nothing is lost.
  }
}
