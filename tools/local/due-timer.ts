// `npm start`'s real timer for an emulated event source mapping (a stream's, the delivery queue's):
// armed for the next batch due on the stack's clock, and again after each pass; armed sooner when
// something comes that is due before it. Tests move a virtual clock and deliver instead.

/** What a timer delivers: an emulated mapping. */
export interface DueSource {
  nextDueAt(): number | undefined;
  deliverDue(): Promise<void>;
}

/** A timer for `source` when it delivers on its own (npm start); none when a test delivers. */
export function dueTimerIf(autoDeliver: boolean | undefined, now: () => number, source: DueSource) {
  return autoDeliver ? new DueTimer(now, source) : undefined;
}

export class DueTimer {
  private timer: { handle: NodeJS.Timeout; at: number } | undefined;
  private closed = false;

  constructor(
    private readonly now: () => number,
    private readonly source: DueSource,
  ) {}

  schedule(): void {
    const due = this.source.nextDueAt();
    if (this.closed || due === undefined || (this.timer !== undefined && this.timer.at <= due)) return;
    clearTimeout(this.timer?.handle);
    const handle = setTimeout(
      () => {
        this.timer = undefined;
        // A handler's failure is the mapping's to retry; nothing escapes to the process.
        void this.source
          .deliverDue()
          .catch(() => undefined)
          .then(() => this.schedule());
      },
      Math.max(0, due - this.now()),
    );
    handle.unref();
    this.timer = { handle, at: due };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer?.handle);
  }
}
