// A virtual clock for tests of what slow replies do over time, without waiting for real time: work
// runs on real promises, and whenever everything is waiting on a virtual timer, the clock jumps to
// the earliest one and fires it. For code whose I/O is all in process (the in-memory stores), or,
// with `busy`, I/O that something can tell is still under way (a proxy's calls at the server).
import { setImmediate as nextTurn, setTimeout as realSleep } from 'node:timers/promises';
import type { Timers } from '../../lib/commons/timers';
import { unixSeconds, windowAt } from '../../lib/core/limiter/windows';
import { parseRetryAfter } from '../../client/retry-after';

/** Event-loop turns given to the work between two timers; it only ever waits on promises and these timers. */
const TURNS = 20;

export class VirtualTime {
  private current: number;
  private sequence = 0;
  private timers: { at: number; sequence: number; fire: () => void }[] = [];

  constructor(startMs: number) {
    this.current = startMs;
  }

  /** The virtual time, epoch ms. */
  readonly now = (): number => this.current;

  /** Resolves once the virtual clock has moved `ms` on. */
  readonly sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      this.timers.push({ at: this.current + Math.max(0, ms), sequence: this.sequence++, fire: resolve });
    });

  /** Calls `fire` once the virtual clock has moved `ms` on; the function returned cancels it. */
  readonly after = (ms: number, fire: () => void): (() => void) => {
    const timer = { at: this.current + Math.max(0, ms), sequence: this.sequence++, fire };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  };

  /** The clock and timers as the service takes them (lib/commons/timers.ts). */
  readonly asTimers: Timers = { now: this.now, after: this.after };

  /**
   * Runs the clock until `work` settles, and returns what it came to. While `busy` says I/O is
   * still under way (real time, not virtual), the clock waits for it.
   */
  async run<T>(work: Promise<T>, options: { busy?: () => boolean } = {}): Promise<T> {
    let settled = false;
    const done = work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      for (let turn = 0; turn < TURNS && !settled; turn++) await nextTurn();
      if (settled) break;
      if (options.busy?.()) {
        await realSleep(1);
        continue;
      }
      this.timers.sort((a, b) => a.at - b.at || a.sequence - b.sequence);
      const next = this.timers.shift();
      if (!next) throw new Error('The work waits on something other than the virtual clock');
      this.current = Math.max(this.current, next.at);
      next.fire();
    }
    await done;
    return work;
  }
}

/** An answer as a retrying caller reads it: the status, and the Retry-After header if it had one. */
export interface RetryableAnswer {
  status: number;
  retryAfter?: string | undefined;
}

/**
 * A caller as the client behaves: each 503 is retried after its Retry-After on the virtual clock,
 * until another answer or the end of the minute after the one it started in. Every answer, in
 * order. A 503 without a valid Retry-After fails the test: the client would have nothing to wait for.
 */
export async function retryingEach503<A extends RetryableAnswer>(
  time: VirtualTime,
  call: () => Promise<A>,
): Promise<A[]> {
  const until = windowAt('minute', unixSeconds(time.now())).start + 2 * 60;
  const answers: A[] = [];
  for (;;) {
    const answer = await call();
    answers.push(answer);
    if (answer.status !== 503 || unixSeconds(time.now()) >= until) return answers;
    const seconds = parseRetryAfter(answer.retryAfter ?? null, time.now());
    if (seconds === undefined) throw new Error(`A 503 whose Retry-After is not valid: ${answer.retryAfter}`);
    await time.sleep(seconds * 1000);
  }
}
