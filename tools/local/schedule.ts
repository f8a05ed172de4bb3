// EventBridge Scheduler's rate schedule, emulated on the stack's clock: it runs a scheduled function
// (the index-lag canary) every period, as the stack deploys it (lib/contract/deployment.ts
// SCHEDULES), the first run at once so the walks have a record from the start. `runDue()` runs each
// step whose time has come (a run's start, or the end of a wait the function is given, `sleep`)
// until the function sleeps again or ends: `npm start` calls it every few milliseconds, a test after
// it moves its virtual clock, so a test that moves the clock a step at a time reads the lag the
// embedded server's indexes really have. A run that fails is counted, as Lambda's Errors would count
// it. Closing stops a run's wait and waits for its end, so the stack's DynamoDB closes after it.

/** One invocation, given the schedule's sleep. */
export type ScheduledRun = (sleep: (ms: number) => Promise<void>) => Promise<void>;

export interface LocalScheduleOptions {
  periodMs: number;
  run: ScheduledRun;
  now: () => number;
  /** Run on real timers (npm start); otherwise only runDue() runs anything. */
  autoRun: boolean;
}

/** How often npm start looks for what is due. */
const TICK_MS = 20;

export class LocalSchedule {
  private nextRunAt: number;
  private sleepers: { at: number; wake: () => void; stop: (reason: Error) => void }[] = [];
  private readonly running = new Set<Promise<void>>();
  /** Runs between a step's start and their next sleep or their end. */
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private stepping = false;
  private readonly ticker: NodeJS.Timeout | undefined;
  private closed = false;
  /** Runs started, and the errors of those that failed. */
  runs = 0;
  readonly failures: unknown[] = [];

  constructor(private readonly options: LocalScheduleOptions) {
    this.nextRunAt = options.now();
    if (options.autoRun) this.ticker = setInterval(() => void this.runDue(), TICK_MS).unref();
  }

  /** The sleep a run waits with between its steps: on the schedule's clock. */
  readonly sleep = (ms: number): Promise<void> =>
    new Promise((wake, stop) => {
      if (this.closed) return stop(new Error('The local schedule was closed'));
      this.sleepers.push({ at: this.options.now() + ms, wake, stop });
      this.settle(-1);
    });

  /** When the next step is due: a run's start or the end of a run's sleep. */
  nextDueAt(): number | undefined {
    return this.closed ? undefined : Math.min(this.nextRunAt, ...this.sleepers.map((s) => s.at));
  }

  /** Runs every step due by now, in time order, each until its run sleeps again or ends. */
  async runDue(): Promise<void> {
    if (this.stepping) return;
    this.stepping = true;
    try {
      for (let due = this.nextDueAt(); due !== undefined && due <= this.options.now(); due = this.nextDueAt()) {
        const sleeper = this.sleepers.find((s) => s.at === due);
        if (sleeper) this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
        else this.nextRunAt += this.options.periodMs;
        this.settle(1);
        if (sleeper) sleeper.wake();
        else this.start();
        await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      }
    } finally {
      this.stepping = false;
    }
  }

  /** No more runs; a run still waiting is stopped, as Lambda stops an invocation at its timeout. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.ticker);
    for (const sleeper of this.sleepers.splice(0)) sleeper.stop(new Error('The local schedule was closed'));
    await Promise.allSettled(this.running);
  }

  private start(): void {
    this.runs++;
    const run = this.options
      .run(this.sleep)
      .catch((error: unknown) => void (this.closed || this.failures.push(error)))
      .finally(() => {
        this.running.delete(run);
        this.settle(-1);
      });
    this.running.add(run);
  }

  private settle(change: number): void {
    this.active += change;
    if (this.active === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
