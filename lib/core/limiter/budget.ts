// The time an admission may take. A request whose counting write is answered too late for its work
// to finish before the function's deadline would use a slot and then be answered 503 at the
// deadline: the quota spent on a failure. So the limiter sends an admitting write only while there
// is time for its reply and the work after it, and gives back a slot whose reply came too late.
// "Time for a call" is the slowest store call seen recently (`timedStore` measures them).
import type { Deadline } from '../../commons/deadline';
import type { LimiterStore } from './store';

/** What a request has left, and what it still has to do once admitted. */
export interface TimeBudget {
  /**
   * Ms left for the request's DynamoDB calls: until its answer (the function's deadline less the
   * answer's margin), less the landing margin every write keeps before that answer.
   */
  remainingMs: () => number;
  /** DynamoDB calls the request's own work makes once admitted, in the common case (a cancel: 1). */
  workCalls: number;
  /**
   * When the gateway received the request (epoch ms): its windows are that moment's. A request sent
   * at :59.8 whose key lookup took seconds is still one of that minute's, not the next one's, where
   * it would take a slot of the next minute's own requests (and count their refusals toward a ban).
   */
  arrivedAtMs?: number;
  /** The request's deadline, which every store call carries (lib/commons/deadline.ts). */
  deadline?: Deadline;
}

/** Whether `calls` more DynamoDB calls, each as slow as the slowest seen lately, fit in the budget. */
export function timeFor(budget: TimeBudget, calls: number, slowestCallMs: number): boolean {
  return budget.remainingMs() >= calls * slowestCallMs;
}

/** How many recent calls the estimate looks back over: enough to hold a burst's slow tail. */
export const RECENT_CALLS = 64;

/** The durations of the last RECENT_CALLS calls, in a ring; the slowest of them is the estimate. */
export class RecentLatency {
  private readonly samples: number[] = [];
  private next = 0;

  record(ms: number): void {
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % RECENT_CALLS;
  }

  /** The slowest recent call, in ms; 0 before any. */
  slowestMs(): number {
    return this.samples.reduce((slowest, ms) => Math.max(slowest, ms), 0);
  }
}

/** `store`, every call's duration by `elapsedMs` (a monotonic clock) recorded into `latency`, failed ones too. */
export function timedStore(store: LimiterStore, latency: RecentLatency, elapsedMs: () => number): LimiterStore {
  const timed =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = elapsedMs();
      try {
        return await call(...args);
      } finally {
        latency.record(elapsedMs() - started);
      }
    };
  return {
    take: timed((item, write, deadline) => store.take(item, write, deadline)),
    recordRefusal: timed((item, write, deadline) => store.recordRefusal(item, write, deadline)),
    writeBan: timed((item, ban, deadline) => store.writeBan(item, ban, deadline)),
    giveBack: timed((item, write, deadline) => store.giveBack(item, write, deadline)),
    markRevoked: timed((item, mark) => store.markRevoked(item, mark)),
    read: timed((item, deadline) => store.read(item, deadline)),
  };
}
