// DynamoDB calls kept within their request's deadline (docs/design.md#a-503-is-not-followed-by-the-change).
// Lambda freezes the execution environment once the function has answered and thaws it for a later
// call ("Lambda freezes the execution environment when the runtime and each extension have
// completed", https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html), so a
// call still under way, or about to be sent, when a request is answered 503 would reach DynamoDB
// whenever the environment runs again. So:
// - every call carries its request's abort signal (Deadline.signal), aborted before that answer;
// - a write attempt is started only while it can still end, by its own timeout or sooner, the
//   landing margin before the answer, and it is cut then (`startAttempt`): an attempt that went
//   unanswered has landed by the answer;
// - a write attempt that ends unanswered is told to the deadline (Deadline.unanswered), and the
//   edge answers a failure only once it may have landed: a 503 comes after its last possible change;
// - right before a call is sent, after signing, its signal and the clock are checked again
//   (`checkedBeforeSending`): a thawed process runs on before its timers fire, and a write whose
//   attempt time has passed (its stamp taken before a freeze) is not sent.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { getSmithyContext } from '@smithy/core/client';
import { CallAbortedError, writesEndBy, type Deadline } from '../commons/deadline';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { CodedError } from '../contract/errors';
import { networkCodeInMessage } from './dependency-failure';

/** Each write attempt's own time: cut `timeoutMs` after it starts (signing and connecting included). */
export interface AttemptTimer {
  timeoutMs: number;
  timers: Timers;
}

/** The options a call is sent with: its abort signal. */
export type SendOptions = { abortSignal?: AbortSignal };

/** No time was left to start a write (or its request was already answered): nothing was sent. Answered 503. */
export class NoTimeToWriteError extends CodedError {
  override readonly name = 'NoTimeToWriteError';
  constructor() {
    super('SERVICE_UNAVAILABLE', 'No time was left to send a write before the request had to be answered');
  }
}

/** A write attempt cut at its end (its own timeout or its request's write deadline): DynamoDB was too slow. */
const attemptCut = () => new CallAbortedError('The write attempt was cut at the end of its time');

/** By when a call must be sent, on which clock: a signal's attempt end, or its request's answer. */
const sendBy = new WeakMap<AbortSignal, { at: number; now: () => number }>();

/** A read's options: its request's signal, which is not sent once the request is answered. */
export function readOptions(deadline: Deadline | undefined): SendOptions {
  if (!deadline) return {};
  sendBy.set(deadline.signal, { at: deadline.answerAt, now: deadline.timers.now });
  return { abortSignal: deadline.signal };
}

export interface WriteAttempt {
  /** What the attempt is sent with. */
  readonly send: SendOptions;
  /** When it is cut (epoch ms on its timers); Infinity when neither a timer nor a deadline bounds it. */
  readonly endsBy: number;
  readonly timers: Timers;
  /** Stops its timer: call once the attempt is answered or has failed. */
  end(): void;
}

/**
 * Starts one write attempt, cut at its own timeout or at its request's write deadline, whichever
 * is first; throws NoTimeToWriteError, having sent nothing, when that leaves it no time at all.
 */
export function startAttempt(timer: AttemptTimer | undefined, deadline: Deadline | undefined): WriteAttempt {
  const timers = deadline?.timers ?? timer?.timers ?? REAL_TIMERS;
  const now = timers.now();
  const endsBy = Math.min(timer ? now + timer.timeoutMs : Infinity, deadline ? writesEndBy(deadline) : Infinity);
  if (deadline?.signal.aborted || endsBy <= now) throw new NoTimeToWriteError();
  const controller = new AbortController();
  const stop = Number.isFinite(endsBy)
    ? timers.after(endsBy - now, () => controller.abort(attemptCut()))
    : () => undefined;
  const follow = () => controller.abort(deadline?.signal.reason);
  deadline?.signal.addEventListener('abort', follow, { once: true });
  sendBy.set(controller.signal, { at: endsBy, now: timers.now });
  return {
    send: { abortSignal: controller.signal },
    endsBy,
    timers,
    end: () => {
      stop();
      deadline?.signal.removeEventListener('abort', follow);
    },
  };
}

/**
 * Whether a failed write may still land: not when DynamoDB answered it (any status), nor when it
 * was never sent (refused before sending, or no connection was ever made); any other failure (a
 * timeout, a cut, a reset) may have reached DynamoDB.
 */
export function mayStillLand(error: unknown): boolean {
  const { $metadata, code, message, unsent } = (error ?? {}) as {
    $metadata?: { httpStatusCode?: unknown };
    code?: unknown;
    message?: unknown;
    unsent?: unknown;
  };
  if (typeof $metadata?.httpStatusCode === 'number' || unsent === true) return false;
  const refused =
    code === 'ECONNREFUSED' || (typeof message === 'string' && networkCodeInMessage(message) === 'ECONNREFUSED');
  return !refused;
}

/**
 * Runs one write attempt's send; a failure DynamoDB gave no answer to is told to the deadline
 * (when it ended), since the write may still land.
 */
export async function sendAttempt<T>(
  attempt: WriteAttempt,
  deadline: Deadline | undefined,
  send: (options: SendOptions) => Promise<T>,
): Promise<T> {
  try {
    return await send(attempt.send);
  } catch (error) {
    if (mayStillLand(error)) deadline?.unanswered(Math.min(attempt.timers.now(), attempt.endsBy));
    throw error;
  } finally {
    attempt.end();
  }
}

/** One write, sent once within its time (`startAttempt`, `sendAttempt`). */
export async function sendWrite<T>(
  timer: AttemptTimer | undefined,
  deadline: Deadline | undefined,
  send: (options: SendOptions) => Promise<T>,
): Promise<T> {
  return sendAttempt(startAttempt(timer, deadline), deadline, send);
}

/** An AbortError, as the SDK's own (a dependency failure: lib/stores/dependency-failure.ts), for a call never sent. */
function unsentError(reason: unknown): Error {
  return Object.assign(new Error('Request aborted before it was sent'), {
    name: 'AbortError',
    cause: reason,
    unsent: true,
  });
}

/**
 * Refuses, right after signing, to send a call whose signal is aborted or whose time (its attempt's
 * end, or its request's answer) has passed on its own clock. The HTTP handler checks the signal
 * too; the clock is checked here because a thawed process runs on before its timers fire.
 */
export function checkedBeforeSending(client: DynamoDBClient): void {
  // Last of its step: after the retry middleware and the signing (which the SDK places right after it).
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const signal = getSmithyContext(context).abortSignal as AbortSignal | undefined;
      if (signal?.aborted) throw unsentError(signal.reason);
      const by = signal && sendBy.get(signal);
      if (by && by.now() >= by.at) throw unsentError(new CallAbortedError('Its time was over before it was sent'));
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'checkedBeforeSending', override: true },
  );
}
