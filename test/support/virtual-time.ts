// A virtual clock for tests of what slow replies do over time, without waiting for real time: work
// runs on real promises, and whenever everything is waiting on a virtual timer, the clock jumps to
// the earliest one and fires it. Only for code whose I/O is all in process (the in-memory stores).
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Event-loop turns given to the work between two timers; it only ever waits on promises and these timers. */
const TURNS = 20;

export class VirtualTime {
  private current: number;
  private sequence = 0;
  private readonly timers: { at: number; sequence: number; fire: () => void }[] = [];

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

  /** Runs the clock until `work` settles, and returns what it came to. */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      for (let turn = 0; turn < TURNS && !settled; turn++) await nextTurn();
      if (settled) break;
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
