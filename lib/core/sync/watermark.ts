// The watermark a walk ends with: the instant up to which every change is settled and has been
// delivered. A change stamped at or before `started - settleMs` reached the table and its indexes
// before the walk began (lib/contract/sync.ts settleMs), so the walk, which reads every shard from
// `updatedSince` to its end after that, delivered it or a later change of the same order.
// Never later than that, even when the walk asked from a later `updatedSince`: the changes between
// the two may not have landed yet, and the next walk, from this watermark, reads them. A watermark
// earlier than the walk's `updatedSince` only makes the next walk deliver some changes again
// (docs/design.md#exact-incremental-sync).
// While the index-lag canary measures more lag than the settling time allows for, the watermark
// stands back by the excess; while it cannot vouch for the indexes at all, it stays where its last
// probe seen leaves it, or at the walk's own `updatedSince` if that is later: the walk then vouches
// for nothing new (docs/design.md#the-index-lag-canary).
import type { LagHold } from './index-lag';

/** ISO 8601 UTC with milliseconds, as updatedAt is written. */
export function walkWatermark(started: number, settleMs: number): string {
  return new Date(started - settleMs).toISOString();
}

/** What the hold needs besides the walk's start: its settling time, the index lag it allows for, its updatedSince. */
export interface HeldWalk {
  startedMs: number;
  settleMs: number;
  indexLagMs: number;
  /** The walk's updatedSince, epoch ms; absent for a walk without one. */
  sinceMs?: number;
}

/** The watermark in epoch ms under the canary's hold, never before the epoch. */
export function heldWatermarkMs(walk: HeldWalk, hold: LagHold): number {
  const held = walk.startedMs - walk.settleMs - (hold.kind === 'held' ? hold.holdMs : 0);
  if (hold.kind === 'held') return Math.max(0, held);
  // Every change that landed by the last probe seen was in the index by the time the canary saw it.
  const vouched = hold.vouchedUntilMs === undefined ? 0 : hold.vouchedUntilMs - (walk.settleMs - walk.indexLagMs);
  return Math.max(0, Math.min(held, Math.max(vouched, walk.sinceMs ?? 0)));
}
