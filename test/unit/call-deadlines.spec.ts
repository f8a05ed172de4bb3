// What keeps a request's DynamoDB calls within its deadline (lib/commons/deadline.ts,
// lib/stores/call-deadlines.ts), on a virtual clock: the signal fires at the deadline, a write
// attempt starts only while it can end the landing margin before the answer and is cut then or at
// its own timeout, and a failure waits for the unanswered writes to have landed, never past the
// answer. The same through HTTP with held writes: test/http/deadline-writes.spec.ts.
import { CallAbortedError, requestDeadline, writesEndBy } from '../../lib/commons/deadline';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { mayStillLand, NoTimeToWriteError, sendAttempt, startAttempt } from '../../lib/stores/call-deadlines';
import { isDependencyFailure } from '../../lib/stores/dependency-failure';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { stampedWrite } from '../../lib/stores/stamped-write';
import { VirtualTime } from '../support/virtual-time';

const START = Date.UTC(2026, 10, 22, 12, 0, 0);
const LANDING_MS = SYNC_TIMING.unansweredLandingMs;
/** A cancel's: its function's 10 s less the half second kept to answer. */
const ANSWER_IN_MS = 9_500;

function world() {
  const time = new VirtualTime(START);
  const deadline = requestDeadline(time.asTimers, ANSWER_IN_MS, LANDING_MS);
  const timer = { timeoutMs: REQUEST_TIMEOUT_MS, timers: time.asTimers };
  /** Resolves to the virtual ms since START at which `promise` settled, driving the clock. */
  const settledAt = async (promise: Promise<unknown>) => {
    await time.run(promise.catch(() => undefined));
    return time.now() - START;
  };
  return { time, deadline, timer, settledAt };
}

/** What the SDK does with a call whose signal is aborted: it rejects with an AbortError. */
const aborted = (signal: AbortSignal | undefined) =>
  new Promise<never>((_, reject) =>
    signal?.addEventListener('abort', () =>
      reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' })),
    ),
  );

describe('the request deadline', () => {
  test('its writes end the landing margin before its answer; its signal fires when it is reached', () => {
    const { deadline } = world();
    expect(deadline.answerAt).toBe(START + ANSWER_IN_MS);
    expect(writesEndBy(deadline)).toBe(START + ANSWER_IN_MS - LANDING_MS);
    expect(deadline.signal.aborted).toBe(false);
    deadline.reach();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBeInstanceOf(CallAbortedError);
  });

  test('a failure is answered once every unanswered write may have landed, and never past the answer', async () => {
    const { time, deadline, settledAt } = world();
    expect(await settledAt(deadline.settled())).toBe(0);
    deadline.unanswered(START + REQUEST_TIMEOUT_MS);
    expect(await settledAt(deadline.settled())).toBe(REQUEST_TIMEOUT_MS + LANDING_MS);
    deadline.unanswered(time.now());
    expect(await settledAt(deadline.settled())).toBe(ANSWER_IN_MS);
  });

  test('reaching the deadline ends the wait: the 503 is given then', async () => {
    const { time, deadline, settledAt } = world();
    deadline.unanswered(START + ANSWER_IN_MS);
    time.after(1_000, () => deadline.reach());
    expect(await settledAt(deadline.settled())).toBe(1_000);
  });
});

describe('a write attempt', () => {
  test('is cut at its own timeout, counted from its start', async () => {
    const { deadline, timer, settledAt } = world();
    const attempt = startAttempt(timer, deadline);
    expect(attempt.endsBy).toBe(START + REQUEST_TIMEOUT_MS);
    expect(await settledAt(aborted(attempt.send.abortSignal))).toBe(REQUEST_TIMEOUT_MS);
  });

  test('started later, is cut when its request’s writes must have ended, sooner than its timeout', async () => {
    const { time, deadline, timer, settledAt } = world();
    await time.run(time.sleep(5_000));
    const attempt = startAttempt(timer, deadline);
    expect(attempt.endsBy).toBe(writesEndBy(deadline));
    expect(await settledAt(aborted(attempt.send.abortSignal))).toBe(ANSWER_IN_MS - LANDING_MS);
  });

  test('is not started, nothing sent, once it could not end before the answer or once the request was answered', async () => {
    const { time, deadline, timer } = world();
    await time.run(time.sleep(ANSWER_IN_MS - LANDING_MS));
    expect(() => startAttempt(timer, deadline)).toThrow(NoTimeToWriteError);
    const answered = world().deadline;
    answered.answered();
    expect(() => startAttempt(timer, answered)).toThrow(NoTimeToWriteError);
  });

  test('is aborted when its request reaches its deadline', () => {
    const { deadline, timer } = world();
    const attempt = startAttempt(timer, deadline);
    deadline.reach();
    expect(attempt.send.abortSignal?.aborted).toBe(true);
  });

  test('that goes unanswered is told to the deadline, one that was answered or never sent is not', async () => {
    const { time, deadline, timer, settledAt } = world();
    const fail = (error: unknown) =>
      sendAttempt(startAttempt(timer, deadline), deadline, async () => {
        throw error;
      }).catch(() => undefined);
    await fail(Object.assign(new Error('throttled'), { $metadata: { httpStatusCode: 400 } }));
    await fail(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    await fail(Object.assign(new Error('Request aborted before it was sent'), { name: 'AbortError', unsent: true }));
    expect(await settledAt(deadline.settled())).toBe(0);
    await time.run(time.sleep(1_000));
    await fail(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }));
    expect(await settledAt(deadline.settled())).toBe(1_000 + LANDING_MS);
  });
});

describe('a stamped write within its request’s deadline', () => {
  test('retries only while an attempt can end before the answer, then gives up with nothing more sent', async () => {
    const { time, deadline, timer } = world();
    const attempts: { at: number; endsAt: number; stamp: string }[] = [];
    const write = stampedWrite(
      { now: time.now },
      async ({ stamp, send }) => {
        const at = time.now() - START;
        await aborted(send.abortSignal).catch((error: unknown) => {
          attempts.push({ at, endsAt: time.now() - START, stamp });
          throw error;
        });
      },
      { timer, deadline },
    );
    await expect(time.run(write)).rejects.toThrow(NoTimeToWriteError);
    // The first cut at its timeout, the second when the writes must end; no third: it could not end in time.
    expect(attempts.map((a) => a.endsAt)).toEqual([REQUEST_TIMEOUT_MS, ANSWER_IN_MS - LANDING_MS]);
    expect(attempts.every((a) => a.endsAt - a.at <= REQUEST_TIMEOUT_MS)).toBe(true);
    // Each attempt's stamp is taken as it starts: no attempt ends later than its timeout after it.
    expect(attempts.every((a) => a.endsAt - (Date.parse(a.stamp) - START) <= REQUEST_TIMEOUT_MS)).toBe(true);
    // Its failure is answered once the last unanswered attempt may have landed: at the answer.
    await time.run(deadline.settled());
    expect(time.now() - START).toBe(ANSWER_IN_MS);
  });

  test('a call aborted by its signal is a dependency failure (503), so a write retries it while there is time', () => {
    expect(isDependencyFailure(Object.assign(new Error('Request aborted'), { name: 'AbortError' }))).toBe(true);
    expect(mayStillLand(Object.assign(new Error('Request aborted'), { name: 'AbortError' }))).toBe(true);
  });
});
