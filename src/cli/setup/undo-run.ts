import { EXIT, LanesError } from '../../core/errors.js';
import type { Lanes } from '../../index.js';
import type { CommandSpec, Io } from '../command.js';
import { printJson } from '../output.js';
import { confirm } from './confirm.js';
import { readSetupRecord } from './record.js';
import { shown, undoText } from './text.js';
import { applyUndo, planUndo } from './undo.js';

// `lanes setup --undo` as the command runs it: the record of this repository, what undoing it
// does to each file, the question, the undoing.

export interface UndoRun {
  root: string;
  home: string;
  repository: string;
  lanes: Lanes;
  dryRun: boolean;
  yes: boolean;
  keepEdited: boolean;
  /** This command line with --yes. */
  again: string;
}

export async function undoSetup(spec: CommandSpec, io: Io, o: UndoRun): Promise<number> {
  const record = readSetupRecord(process.env, o.repository);
  if (!record)
    throw new LanesError(
      'E_NOT_FOUND',
      `lanes setup --undo: lanes setup wrote nothing in this repository that is not undone`,
      {
        hint: 'what `lanes hooks install` or `lanes guard install` wrote goes with `lanes hooks uninstall AGENT…` and `lanes guard uninstall`',
        details: { repository: o.repository },
      },
    );
  const items = planUndo(record, o.keepEdited);
  const todo = items.filter((i) => i.action !== 'as before' && i.action !== 'leave');
  const json = (undone: boolean) =>
    printJson(io.stdout, {
      root: o.root,
      repository: o.repository,
      dryRun: o.dryRun,
      undone,
      files: items.map((i) => ({ file: i.file.path, action: i.action, edited: i.edited })),
    });
  if (!io.json) io.stdout(`lanes setup --undo in ${o.root}\n${undoText(items, o.root, o.home)}`);
  if (o.dryRun) {
    if (io.json) json(false);
    else io.stdout('dry run: nothing was changed\n');
    return EXIT.ok;
  }
  const question = `Undo lanes setup on ${todo.length} file${todo.length === 1 ? '' : 's'}?`;
  if (todo.length) await confirm(spec, o.yes, question, o.again);
  await applyUndo(record, items, { home: o.home, uninstallGuard: () => o.lanes.guard.uninstall() });
  if (io.json) json(true);
  else {
    const left = items.filter((i) => i.action === 'leave').map((i) => shown(i.file.path, o.root, o.home));
    io.stdout(
      `Undone: lanes setup's record of this repository is gone.${left.length ? ` Left as you changed it: ${left.join(', ')}.` : ''}\n`,
    );
  }
  return EXIT.ok;
}
