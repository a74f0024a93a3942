/**
 * How many git processes lanes runs at once over many worktrees (sweep, conflicts, progress): on
 * the 2-core machines measured, 4 keeps both cores busy while one git waits on the disk.
 */
export const GIT_PARALLEL = 4;

/** fn over items, at most `width` at a time (a pool, not batches: a slow one holds up no other), results in the items' order. */
export async function inBatches<T, R>(
  items: readonly T[],
  width: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}
