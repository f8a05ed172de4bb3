// The watermark a walk ends with: the instant up to which every change is settled and has been
// delivered. A change stamped at or before `started - settleMs` reached the table and its indexes
// before the walk began (lib/contract/sync.ts settleMs), so the walk, which reads every shard from
// `updatedSince` to its end after that, delivered it or a later change of the same order. Never
// before `updatedSince` itself: a client's watermark does not move back (docs/design.md#exact-incremental-sync).

/** ISO 8601 UTC with milliseconds, as updatedAt is written. */
export function walkWatermark(started: number, settleMs: number, updatedSince: string | undefined): string {
  const settled = new Date(started - settleMs).toISOString();
  return updatedSince !== undefined && updatedSince > settled ? updatedSince : settled;
}
