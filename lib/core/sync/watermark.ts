// The watermark a walk ends with: the instant up to which every change is settled and has been
// delivered. A change stamped at or before `started - settleMs` reached the table and its indexes
// before the walk began (lib/contract/sync.ts settleMs), so the walk, which reads every shard from
// `updatedSince` to its end after that, delivered it or a later change of the same order.
// Never later than that, even when the walk asked from a later `updatedSince`: the changes between
// the two may not have landed yet, and the next walk, from this watermark, reads them. A watermark
// earlier than the walk's `updatedSince` only makes the next walk deliver some changes again
// (docs/design.md#exact-incremental-sync).

/** ISO 8601 UTC with milliseconds, as updatedAt is written. */
export function walkWatermark(started: number, settleMs: number): string {
  return new Date(started - settleMs).toISOString();
}
