// A write that stamps its item's updatedAt, by the stamp rules of lib/core/sync/stamps.ts: the stamp
// is taken as each attempt starts, never reused by a retry, and each retry's condition also accepts
// the stamps of its own earlier attempts that may have landed, so one that landed is stamped again
// and one that lands after the retry fails its condition. A write makes at most STAMPED_ATTEMPTS
// attempts, retries after a failure and after another writer's later stamp alike. Each attempt is
// cut at its own timeout, counted on the injected timers from before its stamp (signing and
// connecting included), and within its request's deadline (lib/stores/call-deadlines.ts): this
// bounds how long after its stamp a change can reach the table (lib/contract/sync.ts settleMs,
// docs/design.md#exact-incremental-sync), and no change lands after its request's 503: an attempt
// that ends unanswered is told to the deadline, and the 503 waits until it may have landed.
import type { Deadline } from '../commons/deadline';
import { CodedError } from '../contract/errors';
import { afterAttempt, NO_ATTEMPT, nextStamp, type AttemptEnd, type StampHistory } from '../core/sync/stamps';
import { isDependencyFailure } from './dependency-failure';
import type { StampClock } from './aws-clock';
import { sendAttempt, startAttempt, type AttemptTimer, type SendOptions } from './call-deadlines';

// The rules' names where the stamped writes' callers have always found them (the stream consumer's too).
export { STAMPED_ATTEMPTS, stampAfter } from '../core/sync/stamps';

export interface StampedAttempt {
  /** This attempt's stamp. */
  stamp: string;
  /** The stamps of this write's earlier attempts, any of which may have landed. */
  earlier: readonly string[];
  /** What this attempt is sent with (`client.send(command, send)`): its signal, aborted at its end. */
  send: SendOptions;
}

/** What an answered attempt came to: the write's result, or another writer's later stamp to follow. */
export type Judged<T> = { result: T } | { stampedLater: string | undefined };

export interface StampedWriteOptions {
  /** Read before each attempt: a stamp must be later than the item's current updatedAt. */
  after?: () => string | undefined;
  /** Attempts at most, the first included: STAMPED_ATTEMPTS unless a test says. */
  attempts?: number;
  /** Each attempt's own timeout and the timers it (and the backoff) runs on; the client's own timeout alone when absent. */
  timer?: AttemptTimer;
  /** The request the write is made for: no attempt starts that could not end before its answer. */
  deadline?: Deadline;
  /** The backoff's jitter, in [0, 1): Math.random unless a test says. */
  random?: () => number;
}

/** A write whose every attempt met another writer's later stamp: the item kept changing. Answered 503. */
export class StampedWriteContendedError extends CodedError {
  override readonly name = 'StampedWriteContendedError';
  constructor() {
    super('SERVICE_UNAVAILABLE', 'The item kept changing while it was being written');
  }
}

/**
 * Runs `attempt` until it answers, each time with a new stamp; a dependency failure (timeout,
 * throttling, 5xx, a lost connection) is retried after a short backoff while attempts are left
 * and there is time for another (NoTimeToWriteError when there is none), anything else is thrown.
 * With `judge`, an answer (read outside the attempt's time) may say another writer's stamp came
 * later: the write is stamped after it and tried again, within the same attempts
 * (StampedWriteContendedError when none is left).
 */
export function stampedWrite<T>(
  clock: StampClock,
  attempt: (stamped: StampedAttempt) => Promise<T>,
  options?: StampedWriteOptions,
): Promise<T>;
export function stampedWrite<A, T>(
  clock: StampClock,
  attempt: (stamped: StampedAttempt) => Promise<A>,
  options: StampedWriteOptions & { judge: (answer: A) => Promise<Judged<T>> },
): Promise<T>;
export async function stampedWrite(
  clock: StampClock,
  attempt: (stamped: StampedAttempt) => Promise<unknown>,
  options: StampedWriteOptions & { judge?: (answer: unknown) => Promise<Judged<unknown>> } = {},
): Promise<unknown> {
  const { after = () => undefined, attempts, timer, deadline, random = Math.random } = options;
  const judge = options.judge ?? (async (answer: unknown) => ({ result: answer }));
  let history: StampHistory = NO_ATTEMPT;
  for (;;) {
    // Before the stamp: the attempt is cut at most its timeout after it.
    const started = startAttempt(timer, deadline);
    const stamp = nextStamp(history, clock.now(), after());
    let end: AttemptEnd;
    let failure: unknown;
    try {
      const judged = await judge(
        await sendAttempt(started, deadline, (send) => attempt({ stamp, earlier: history.earlier, send })),
      );
      if ('result' in judged) return judged.result;
      end = { kind: 'stamped later', updatedAt: judged.stampedLater };
      failure = new StampedWriteContendedError();
    } catch (error) {
      end = { kind: isDependencyFailure(error) ? 'dependency failed' : 'failed' };
      failure = error;
    }
    const next = afterAttempt(history, stamp, end, {
      random: random(),
      ...(attempts !== undefined ? { maxAttempts: attempts } : {}),
    });
    if (!next.retry) throw failure;
    history = next.history;
    if (next.backoffMs > 0) await new Promise<void>((resolve) => started.timers.after(next.backoffMs, resolve));
  }
}
