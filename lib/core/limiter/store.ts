// The limiter's port: the conditional writes the algorithm (lib/core/limiter/limiter.ts) makes on one key's
// item for one UTC day. Each write is one atomic check-and-set, sent once (never retried: a retry
// after a late reply would apply it twice). The DynamoDB store (lib/stores/rate-limiter.ts) holds
// them as UpdateItem expressions; test/support/in-memory-limiter-store.ts holds the same conditions.
// A request's calls carry its deadline: none is sent, or lands, after its answer (lib/stores/call-deadlines.ts).
import type { Deadline } from '../../commons/deadline';
import type { Limits } from '../../contract/plans';
import type { Found } from './rules';
import type { Window } from './windows';

/** One key's limiter item for one UTC day. */
export interface LimiterItem {
  keyId: string;
  day: Window;
}

/**
 * A write whose condition failed: the item as the condition met it (DynamoDB returns it with the
 * failure), or as read just after (the embedded server returns none); 'absent' when there is none.
 */
export type NotApplied = { applied: false; found: Found };

export interface LimiterStore {
  /**
   * The one admitting write. Applied only while the item bears no revocation mark, no ban is in
   * force at `now` (none stored, ended at or before `now`, or starting after it) and the day count
   * is below `limits.perDay`, and:
   * - into the stored minute (`newMinute` false): the stored minute is `minute` and its count is
   *   below `limits.perMinute`; increments the day and minute counts;
   * - as the first request of `minute` (`newMinute` true): no minute is stored, or an earlier one
   *   (a later one is never moved back); sets the minute with a count of 1 and no refusals, and
   *   increments the day count (from 0 for a new item).
   * Applied: the day and minute counts after it.
   */
  take(
    item: LimiterItem,
    write: { minute: number; newMinute: boolean; now: number; limits: Limits },
    deadline?: Deadline,
  ): Promise<{ applied: true; day: number; inMinute: number } | NotApplied>;

  /**
   * Records one refusal in `minute`: as the first of it (`newMinute`: no minute or an earlier one
   * stored; sets the minute with a count of 0 and one refusal), or added to it (the stored minute
   * is `minute`). Applied: the refusals now recorded in the minute; not applied: undefined.
   */
  recordRefusal(
    item: LimiterItem,
    write: { minute: number; newMinute: boolean },
    deadline?: Deadline,
  ): Promise<number | undefined>;

  /**
   * Bans the key on this item from `from` until `until` (creating the item if need be), unless a
   * ban is in force at `now` (a stored ban ending after `now`): a ban in force is never moved.
   */
  writeBan(
    item: LimiterItem,
    ban: { from: number; until: number; now: number },
    deadline?: Deadline,
  ): Promise<{ applied: true } | NotApplied>;

  /**
   * Undoes one admission into `minute` that will not be served: decrements the day and minute counts
   * while the stored minute is `minute` (and its count above 0), or only the day's once the minute
   * has moved on. True when a count was given back.
   */
  giveBack(item: LimiterItem, write: { minute: number }, deadline?: Deadline): Promise<boolean>;

  /**
   * Marks the key revoked on this item (creating it if need be, to expire with its day), so every
   * later `take` on it fails. Nothing else on the item changes; a mark already there stays.
   */
  markRevoked(item: LimiterItem, mark: { at: number }): Promise<void>;

  /** The item, read consistently. */
  read(item: LimiterItem, deadline?: Deadline): Promise<Found>;
}
