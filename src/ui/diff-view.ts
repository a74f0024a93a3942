// A session's work as the page's diff view gets it (issue 49, item 1): what `lanes diff` shows,
// its patch cut to what a browser draws well. A night's session can change a lockfile or a
// generated file of megabytes: such a file is listed with its counts and without its patch, and
// the page says where to read it whole (`lanes diff`).
import type { SessionDiff } from '../index.js';
import type { UiDiff } from './view-types.js';

/** The most patch text one file shows on the page. */
export const FILE_PATCH_MAX = 256 * 1024;
/** The most patch text of all files together; the files past it are listed without their patch. */
export const PATCH_MAX = 2 * 1024 * 1024;

export function capDiff(d: SessionDiff, name: string): UiDiff {
  let room = PATCH_MAX;
  const notes = [...d.notes];
  let left = 0;
  const files = d.files.map((f) => {
    const size = (f.header?.length ?? 0) + (f.hunks?.length ?? 0);
    if (size <= FILE_PATCH_MAX && size <= room) {
      room -= size;
      return f;
    }
    left++;
    const { hunks: _, ...rest } = f;
    return { ...rest, patchLeftOut: true as const };
  });
  // The page's type is a part of the library's: a change there that breaks it fails here.
  if (left > 0)
    notes.push(`the patch of ${left} file(s) is too large for the page: \`lanes diff ${name}\` shows it whole`);
  return { ...d, files, notes };
}
