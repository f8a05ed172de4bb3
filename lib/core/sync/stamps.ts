// The stamp rules of every write that changes an order (docs/design.md#exact-incremental-sync), as
// pure functions, apart from their persistence (as Powertools' idempotency utility splits its
// algorithm from its store): what an attempt's stamp must be, which earlier stamps a retry's
// condition accepts, and whether a write tries again, after how long. lib/stores/stamped-write.ts
// runs them around DynamoDB's sends; the orders store holds them as condition expressions.

/**
 * The most attempts one stamped write makes, its first included, whatever ends them: a failure
 * DynamoDB may have applied (a timeout, throttling, a 5xx) or another writer's later stamp. So a
 * cancel sends at most this many UpdateItems, a create this many PutItems. Declared once: the
 * writes, the limiter's time budget (lib/edge/orders-handlers.ts WORK_CALLS), docs and tests read it.
 */
export const STAMPED_ATTEMPTS = 3;

/**
 * Of those, the attempts the limiter keeps time for before it admits a request whose work is one
 * stamped write (its time budget, lib/core/limiter/budget.ts): the first. The others follow only a
 * failure or another writer's later stamp, and start only while they can end before the request's
 * writes must (its deadline, lib/stores/call-deadlines.ts); keeping time for all of them would
 * refuse every cancel while DynamoDB answers seconds late, though most would be served by one.
 */
export const BUDGETED_STAMPED_ATTEMPTS = 1;

/** The first retry's backoff, at most (full jitter); it doubles with each further attempt. */
export const STAMPED_BACKOFF_BASE_MS = 50;

/** The ISO text of a stamp strictly later than `after` (an updatedAt), at `now` when that is later. */
export function stampAfter(now: number, after?: string): string {
  const floor = after === undefined ? -Infinity : Date.parse(after) + 1;
  return new Date(Math.max(now, floor)).toISOString();
}

/** What one stamped write has done so far, as its next attempt's stamp and condition need it. */
export interface StampHistory {
  /** Attempts made. */
  readonly attempts: number;
  /** The last stamp sent: the next one is later, so one write's stamps never repeat. */
  readonly last?: string;
  /** Another writer's updatedAt a failed condition showed: the next stamp is later. */
  readonly seen?: string;
  /**
   * The stamps of the earlier attempts DynamoDB may have applied (now or later): a retry's condition
   * also accepts the item stamped with one of them, so an attempt that landed is stamped again and
   * one that lands after the retry fails its condition.
   */
  readonly earlier: readonly string[];
}

/** A write that has made no attempt yet. */
export const NO_ATTEMPT: StampHistory = { attempts: 0, earlier: [] };

/** The latest of some ISO instants (undefined ones left out), by time. */
function latest(...stamps: (string | undefined)[]): string | undefined {
  return stamps.reduce<string | undefined>(
    (a, b) => (b === undefined || (a !== undefined && Date.parse(a) >= Date.parse(b)) ? a : b),
    undefined,
  );
}

/**
 * The next attempt's stamp: `now`, unless that is not later than the item's updatedAt (`after`, read
 * as the attempt starts), another writer's stamp a failed condition showed, or this write's own
 * last stamp; then one millisecond after the latest of them.
 */
export function nextStamp(history: StampHistory, now: number, after?: string): string {
  return stampAfter(now, latest(after, history.seen, history.last));
}

/** How an attempt ended, as the retry decision reads it. */
export type AttemptEnd =
  /** DynamoDB answered with the write's outcome (applied, or refused for good): it is the write's. */
  | { kind: 'answered' }
  /** Its condition failed on another writer's stamp (`updatedAt`) not earlier than its own: stamp after it. */
  | { kind: 'stamped later'; updatedAt: string | undefined }
  /** DynamoDB failed, throttled, timed out or was not reached: it may or may not have applied it. */
  | { kind: 'dependency failed' }
  /** Anything else: a bug, or a refusal of ours; never retried. */
  | { kind: 'failed' };

export type NextStep =
  /** The write is over: its answer is returned, or its failure thrown. */
  | { retry: false; reason: 'answered' | 'failed' | 'out of attempts' }
  /** Another attempt, after `backoffMs`, with the history its stamp and condition follow. */
  | { retry: true; backoffMs: number; history: StampHistory };

/**
 * Whether, and how, a stamped write tries again after the attempt stamped `stamp` ended so: while
 * it has attempts left (`maxAttempts` in all), after a dependency's failure (with a backoff of full
 * jitter, `random` in [0, 1)) and after another writer's later stamp (at once: the stamp to follow
 * is known). Only a failed attempt's stamp is accepted by later conditions: an answered one was not applied.
 */
export function afterAttempt(
  history: StampHistory,
  stamp: string,
  end: AttemptEnd,
  { maxAttempts = STAMPED_ATTEMPTS, random }: { maxAttempts?: number; random: number },
): NextStep {
  if (end.kind === 'answered') return { retry: false, reason: 'answered' };
  if (end.kind === 'failed') return { retry: false, reason: 'failed' };
  const attempts = history.attempts + 1;
  if (attempts >= maxAttempts) return { retry: false, reason: 'out of attempts' };
  if (end.kind === 'stamped later') {
    const seen = latest(history.seen, end.updatedAt);
    return {
      retry: true,
      backoffMs: 0,
      history: { attempts, last: stamp, earlier: history.earlier, ...(seen === undefined ? {} : { seen }) },
    };
  }
  return {
    retry: true,
    backoffMs: STAMPED_BACKOFF_BASE_MS * 2 ** (attempts - 1) * random,
    history: { ...history, attempts, last: stamp, earlier: [...history.earlier, stamp] },
  };
}
