// How late a change reached the orders table against its stamp, as the table's stream shows it, and
// whether a walk could have missed it (docs/design.md#the-change-stream). The stream's creation time
// is DynamoDB's own clock, but only to the second: "rounded down to the closest second" (DynamoDB
// API Reference, StreamRecord.ApproximateCreationDateTime). So a change that the record says was
// created in second A landed somewhere in [A, A + 1 s), and each rule below takes the end of that
// interval that errs on its own side: a repair is cheap, so lateness is judged by the latest the
// change can have landed; an alarm about a writer's clock must not cry wolf, so a lead is judged by
// the least it can be.
import type { SyncTiming } from '../../contract/sync';

/** The resolution of a stream record's ApproximateCreationDateTime. */
export const STREAM_TIME_RESOLUTION_MS = 1_000;

/** One change as the stream shows it: its stamp and the second DynamoDB created its record in. */
export interface StreamedStamp {
  /** The order's updatedAt in the record's new image, epoch ms. */
  stampMs: number;
  /** ApproximateCreationDateTime: epoch seconds, rounded down. */
  createdSeconds: number;
}

/** The latest instant (epoch ms) the change can have reached the table. */
const latestLanding = ({ createdSeconds }: StreamedStamp) => createdSeconds * 1000 + STREAM_TIME_RESOLUTION_MS - 1;

/** The most the change can have landed after its stamp (negative: it was stamped ahead of AWS's clock). */
export function latenessAtMostMs(change: StreamedStamp): number {
  return latestLanding(change) - change.stampMs;
}

/** The least the change's stamp can be ahead of AWS's clock as it landed (negative: it landed after its stamp). */
export function leadAtLeastMs(change: StreamedStamp): number {
  return change.stampMs - latestLanding(change);
}

/** What the watch needs of the timing: the walks' settling time, the clock allowance and the index lag to allow for. */
export interface WatchBounds {
  /** How far a walk's watermark stands behind its start (lib/contract/sync.ts settleMs). */
  settleMs: number;
  clockErrorMs: SyncTiming['clockErrorMs'];
  /**
   * The index propagation the settling time must still leave room for: the declared bound, or more
   * while a measurement (the index-lag canary) says the indexes lag further behind.
   */
  indexLagMs: number;
}

/**
 * How late a change may land after its stamp and still be read by every walk whose watermark is at or
 * after its stamp: the settling time less the index lag and the walk's own clock error, the rest
 * of it being the writer's clock error, its attempt timeout and the unanswered landing margin.
 */
export function landingAllowanceMs({ settleMs, clockErrorMs, indexLagMs }: WatchBounds): number {
  return settleMs - indexLagMs - clockErrorMs;
}

/**
 * - `late`: the change may have landed later than the allowance, so a walk may have handed out a
 *   watermark past its stamp before it was readable: the order is re-stamped.
 * - `ahead`: the change was stamped ahead of AWS's clock by more than the clock allowance. No walk
 *   misses it (every watermark trails AWS's clock), and no stamp may be lowered, so it is counted
 *   and alarmed on, not re-stamped (docs/design.md#the-change-stream).
 * - `on-time`: neither.
 */
export type Landing = 'late' | 'ahead' | 'on-time';

export function judgeLanding(change: StreamedStamp, bounds: WatchBounds): Landing {
  if (latenessAtMostMs(change) > landingAllowanceMs(bounds)) return 'late';
  if (leadAtLeastMs(change) > bounds.clockErrorMs) return 'ahead';
  return 'on-time';
}
