// A write that stamps its item's updatedAt: the stamp is taken as each attempt starts, never
// reused by a retry, and each retry's condition also accepts the stamps of its own earlier attempts,
// so an earlier attempt that landed is stamped again and one that lands after the retry fails its
// condition. Each attempt is cut at its own timeout, counted from before its stamp (signing and
// connecting included), and within its request's deadline (lib/stores/call-deadlines.ts): this
// bounds how long after its stamp a change can reach the table (lib/contract/sync.ts settleMs,
// docs/design.md#exact-incremental-sync), and no change lands after its request's 503: an attempt
// that ends unanswered is told to the deadline, and the 503 waits until it may have landed.
import type { Deadline } from '../commons/deadline';
import { isDependencyFailure } from './dependency-failure';
import type { StampClock } from './aws-clock';
import { sendAttempt, startAttempt, type AttemptTimer, type SendOptions } from './call-deadlines';

/** Attempts per write, the first included: the deployed client's count (lib/stores/dynamo.ts). */
export const STAMPED_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 50;

/** The ISO text of a stamp strictly later than `after` (an updatedAt), at `now` when that is later. */
export function stampAfter(now: number, after?: string): string {
  const floor = after === undefined ? -Infinity : Date.parse(after) + 1;
  return new Date(Math.max(now, floor)).toISOString();
}

export interface StampedAttempt {
  /** This attempt's stamp. */
  stamp: string;
  /** The stamps of this write's earlier attempts, any of which may have landed. */
  earlier: readonly string[];
  /** What this attempt is sent with (`client.send(command, send)`): its signal, aborted at its end. */
  send: SendOptions;
}

export interface StampedWriteOptions {
  /** Read before each attempt: a stamp must be later than the item's current updatedAt. */
  after?: () => string | undefined;
  attempts?: number;
  /** Each attempt's own timeout and the timers it runs on; the client's own timeout alone when absent. */
  timer?: AttemptTimer;
  /** The request the write is made for: no attempt starts that could not end before its answer. */
  deadline?: Deadline;
}

/**
 * Runs `attempt` until it answers, each time with a new stamp; a dependency failure (timeout,
 * throttling, 5xx, a lost connection) is retried after a short backoff while there is time for
 * another attempt (NoTimeToWriteError when there is none), anything else is thrown.
 */
export async function stampedWrite<T>(
  clock: StampClock,
  attempt: (stamped: StampedAttempt) => Promise<T>,
  options: StampedWriteOptions = {},
): Promise<T> {
  const { after = () => undefined, attempts = STAMPED_ATTEMPTS, timer, deadline } = options;
  const earlier: string[] = [];
  for (let n = 1; ; n++) {
    // Before the stamp: the attempt is cut at most its timeout after it.
    const started = startAttempt(timer, deadline);
    const floors = [after(), earlier.at(-1)].filter((s): s is string => s !== undefined).sort();
    const stamp = stampAfter(clock.now(), floors.at(-1));
    try {
      return await sendAttempt(started, deadline, (send) => attempt({ stamp, earlier: [...earlier], send }));
    } catch (error) {
      if (n >= attempts || !isDependencyFailure(error)) throw error;
      earlier.push(stamp);
    }
    const backoffMs = BACKOFF_BASE_MS * 2 ** (n - 1) * Math.random();
    await new Promise<void>((resolve) => started.timers.after(backoffMs, resolve));
  }
}
