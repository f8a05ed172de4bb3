// A request's deadline as the stores see it: an abort signal that fires when the request is answered
// (at its deadline, before the 503 is written; or once any answer is given), and the instant its
// writes must have ended by, so that one that went unanswered has landed before that answer. The
// stores tell it of each write that ended unanswered, and a failure is answered only once those may
// have landed (docs/design.md#a-503-is-not-followed-by-the-change). Made by the edge from the Lambda
// context, passed down to the stores as a parameter.
import type { Timers } from './timers';

/**
 * Time kept back from the Lambda deadline to answer (a route's 503, the authorizer's failure)
 * before the runtime stops the function.
 */
export const DEADLINE_MARGIN_MS = 500;

export interface Deadline {
  /** Aborted once the request is answered: at its deadline just before the 503 is written, or after any answer. */
  readonly signal: AbortSignal;
  /** When the request is answered at the latest (epoch ms on `timers`): the deadline's 503. */
  readonly answerAt: number;
  /**
   * How long after it ended an unanswered write may still land (SYNC_TIMING.unansweredLandingMs):
   * every write of the request ends this long before `answerAt`.
   */
  readonly landingMs: number;
  readonly timers: Timers;
  /** A write of the request ended unanswered at `endedAt`: it may land until the landing margin later. */
  unanswered(endedAt: number): void;
}

/** When every write of the request must have ended: its answer, less the landing margin. */
export function writesEndBy(deadline: Deadline): number {
  return deadline.answerAt - deadline.landingMs;
}

/** Why a call was aborted: its request was answered (at its deadline, or at all), or its attempt's time is over. */
export class CallAbortedError extends Error {
  override readonly name = 'CallAbortedError';
}

/** A deadline its maker ends: `reach()` at the deadline, before the 503; `answered()` after any answer. */
export interface RequestDeadline extends Deadline {
  reach(): void;
  answered(): void;
  /**
   * Resolves once every write that ended unanswered may have landed: at once when there was none,
   * at `answerAt` at the latest, and when the deadline is reached.
   */
  settled(): Promise<void>;
}

/**
 * The deadline of a request answered within `answerInMs`, reached by its own timer then: `onReach`
 * runs right after the signal is aborted (a 503 given at the deadline). `stop()` cancels the timer.
 */
export function timedDeadline(
  timers: Timers,
  answerInMs: number,
  landingMs: number,
  onReach: () => void = () => undefined,
): RequestDeadline & { stop(): void } {
  const deadline = requestDeadline(timers, answerInMs, landingMs);
  const stop = timers.after(answerInMs, () => {
    deadline.reach();
    onReach();
  });
  return Object.assign(deadline, { stop });
}

/** The deadline of a request that must be answered within `answerInMs` from now. */
export function requestDeadline(timers: Timers, answerInMs: number, landingMs: number): RequestDeadline {
  const controller = new AbortController();
  const { signal } = controller;
  const answerAt = timers.now() + answerInMs;
  let landedBy = -Infinity;
  return {
    signal,
    answerAt,
    landingMs,
    timers,
    unanswered: (endedAt) => {
      landedBy = Math.max(landedBy, Math.min(endedAt + landingMs, answerAt));
    },
    reach: () => controller.abort(new CallAbortedError('The request was answered at its deadline')),
    answered: () => controller.abort(new CallAbortedError('The request has been answered')),
    settled: () =>
      new Promise<void>((resolve) => {
        const waitMs = landedBy - timers.now();
        if (signal.aborted || waitMs <= 0) return resolve();
        const done = () => {
          stop();
          signal.removeEventListener('abort', done);
          resolve();
        };
        const stop = timers.after(waitMs, done);
        signal.addEventListener('abort', done, { once: true });
      }),
  };
}

/**
 * Runs the work of an invocation no request answers (a stream batch, a scheduled run) within its
 * deadline: DEADLINE_MARGIN_MS before Lambda's timeout, from the context's remaining time (none
 * when the context gives none); the deadline is ended once the work is, so nothing it left under
 * way is sent after (Lambda may thaw a frozen environment much later).
 */
export async function withinInvocation<T>(
  remainingMs: number | undefined,
  timers: Timers,
  landingMs: number,
  work: (deadline: RequestDeadline | undefined) => Promise<T>,
): Promise<T> {
  const deadline =
    remainingMs === undefined
      ? undefined
      : timedDeadline(timers, Math.max(0, remainingMs - DEADLINE_MARGIN_MS), landingMs);
  try {
    return await work(deadline);
  } finally {
    deadline?.stop();
    deadline?.answered();
  }
}
