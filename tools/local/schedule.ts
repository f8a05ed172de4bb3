// EventBridge Scheduler's rate schedule, emulated on the stack's clock: it runs a scheduled function
// (the index-lag canary) every period, as the stack deploys it (lib/contract/deployment.ts
// SCHEDULES), the first run at once so the walks have a record from the start. `npm start` runs it
// on real timers; on a test's virtual clock the test moves time and `runDue()` runs what is due, a
// run's waits (`sleep`, which the function is given for its read-back) included: each step starts
// when its time has come on that clock and runs until the function sleeps or ends, so a test that
// moves the clock a step at a time reads the lag the embedded server's indexes really have.
// A run that fails is counted, as Lambda's Errors would count it, and the next one comes anyway.
// Closing stops a run's wait and waits for its end, so the stack's DynamoDB closes after it.

/** One invocation, given the schedule's sleep. */
export type ScheduledRun = (sleep: (ms: number) => Promise<void>) => Promise<void>;

export interface LocalScheduleOptions {
  periodMs: number;
  run: ScheduledRun;
  now: () => number;
  /** Run on real timers (npm start); otherwise only runDue() runs anything. */
  autoRun: boolean;
}

export class LocalSchedule {
  private nextRunAt: number;
  private sleepers: { at: number; wake: () => void; stop: (reason: Error) => void; timer?: NodeJS.Timeout }[] = [];
  private readonly running = new Set<Promise<void>>();
  /** Runs between a step's start and their next sleep or their end. */
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Runs started, and those that failed (their errors). */
  runs = 0;
  readonly failures: unknown[] = [];

  constructor(private readonly options: LocalScheduleOptions) {
    this.nextRunAt = options.now();
    if (options.autoRun) this.tick();
  }

  /** The sleep a run waits with between its steps: on the schedule's clock. */
  readonly sleep = (ms: number): Promise<void> => {
    if (this.closed) return Promise.reject(new Error('The local schedule was closed'));
    return new Promise((wake, stop) => {
      const sleeper = { at: this.options.now() + ms, wake, stop };
      this.sleepers.push(sleeper);
      if (!this.options.autoRun) return this.settle(-1);
      Object.assign(sleeper, {
        timer: setTimeout(() => {
          this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
          wake();
        }, ms),
      });
    });
  };

  /** When the next step is due: a run's start or the end of a run's sleep. */
  nextDueAt(): number | undefined {
    if (this.closed) return undefined;
    return Math.min(this.nextRunAt, ...this.sleepers.map((s) => s.at));
  }

  /** Runs every step due by now, in time order, each until its run sleeps again or ends. */
  async runDue(): Promise<void> {
    for (;;) {
      await this.idle();
      const now = this.options.now();
      const sleeper = [...this.sleepers].sort((a, b) => a.at - b.at)[0];
      if (sleeper && sleeper.at <= now && sleeper.at <= this.nextRunAt) {
        this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
        this.settle(1);
        sleeper.wake();
      } else if (!this.closed && this.nextRunAt <= now) {
        this.nextRunAt += this.options.periodMs;
        this.start();
      } else return;
    }
  }

  /** No more runs; a run still waiting is stopped, as Lambda stops an invocation at its timeout. Resolves once none runs. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const sleeper of this.sleepers.splice(0)) {
      clearTimeout(sleeper.timer);
      sleeper.stop(new Error('The local schedule was closed'));
    }
    await Promise.allSettled(this.running);
  }

  private start(): void {
    this.runs++;
    this.settle(1);
    const run = this.options
      .run(this.sleep)
      .catch((error: unknown) => {
        if (!this.closed) this.failures.push(error);
      })
      .finally(() => {
        this.running.delete(run);
        this.settle(-1);
      });
    this.running.add(run);
  }

  private settle(change: number): void {
    this.active += change;
    if (this.active > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private idle(): Promise<void> {
    return this.active === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Real timers: a run each period from now on (npm start). */
  private tick(): void {
    if (this.closed) return;
    this.nextRunAt = this.options.now() + this.options.periodMs;
    this.start();
    this.timer = setTimeout(() => this.tick(), this.options.periodMs);
    this.timer.unref();
  }
}
