// Global secondary indexes that lag behind their table, as DynamoDB's do: "All reads from GSIs and
// streams are eventually consistent" (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadConsistency.html),
// and "Write operations propagate to a GSI within 1 second"
// (https://repost.aws/knowledge-center/dynamodb-missing-table-items-gsi). dynalite writes an item's
// index entries together with the item; here each write's GSI changes are kept back for a random
// delay instead, while the table itself (GetItem, Scan and Query of the table) sees the write at once.
//
// dynalite's actions (PutItem, UpdateItem, DeleteItem, and BatchWriteItem through the first two)
// call `db.updateIndexes`, and Query and Scan call `db.queryTable`, through the one shared module
// object: both are wrapped once per process, and act only for a store whose options carry a lag.
import db, { type IndexActions, type Item, type Store, type TableDescription } from 'dynalite/db';

export interface IndexLagOptions {
  /** Each write's index changes become visible after a delay drawn in [0, maxMs]. */
  maxMs: number;
  /** The clock the delays are measured on (epoch ms); tests pass a virtual one. */
  now?: () => number;
  /** In [0, 1): where in [0, maxMs] a write's delay falls. */
  random?: () => number;
}

interface PendingChange {
  tableName: string;
  /** Which table of that name: a change never lands in a table made again after a delete. */
  created: number | undefined;
  visibleAt: number;
  actions: IndexActions;
}

/** Node's longest timer; a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class IndexLag {
  private maxMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private store: Store | undefined;
  private pending: PendingChange[] = [];
  /** The latest visibleAt given to a change of each item still hidden: an item's changes show in order. */
  private readonly lastVisibleAt = new Map<string, number>();
  /** Applying runs one batch at a time, so one item's changes land in the order they were made. */
  private applying: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private closed = false;

  constructor(options: IndexLagOptions) {
    this.maxMs = checkedMaxMs(options.maxMs);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /**
   * The lag of the writes from now on (an index falling behind, or catching up): changes already
   * kept back keep their time, and an item's later change never shows before its earlier one.
   */
  setMaxMs(maxMs: number): void {
    this.maxMs = checkedMaxMs(maxMs);
  }

  /** Keeps back the index changes of one item's write. */
  defer(store: Store, table: TableDescription, itemKey: string, actions: IndexActions): void {
    this.store = store;
    const key = `${table.TableName}\u0000${itemKey}`;
    const drawn = this.now() + this.random() * this.maxMs;
    // Different items may overtake each other; one item's later change waits for its earlier one.
    const visibleAt = Math.max(drawn, this.lastVisibleAt.get(key) ?? drawn);
    this.lastVisibleAt.set(key, visibleAt);
    this.pending.push({ tableName: table.TableName, created: table.CreationDateTime, visibleAt, actions });
    this.schedule(visibleAt);
  }

  /** Applies the changes whose time has come (before every index read, and by a timer). */
  applyDue(): Promise<void> {
    return this.run(() => this.apply((change) => change.visibleAt <= this.now()));
  }

  /** Applies every change kept back, due or not. */
  settle(): Promise<void> {
    return this.run(() => this.apply(() => true));
  }

  /** Settles, and keeps no timer: for the server's close. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.settle();
  }

  private run(work: () => Promise<void>): Promise<void> {
    const done = this.applying.then(work);
    this.applying = done.catch(() => undefined);
    return done;
  }

  private async apply(isDue: (change: PendingChange) => boolean): Promise<void> {
    const due: PendingChange[] = [];
    const rest: PendingChange[] = [];
    for (const change of this.pending) (isDue(change) ? due : rest).push(change);
    // Changes made while these apply go to the new list, for a later batch.
    this.pending = rest;
    for (const change of due) await this.applyOne(change);
    if (this.pending.length === 0) this.lastVisibleAt.clear();
    else {
      // A visibleAt already past constrains nothing: any new change is drawn at now or later.
      const now = this.now();
      for (const [key, visibleAt] of this.lastVisibleAt) if (visibleAt <= now) this.lastVisibleAt.delete(key);
    }
  }

  private async applyOne(change: PendingChange): Promise<void> {
    const store = this.store;
    if (store === undefined) return;
    const table = await new Promise<TableDescription | undefined>((resolve) =>
      store.getTable(change.tableName, true, (error, found) => resolve(error ? undefined : found)),
    );
    // A table deleted (or deleted and made again) since: its old index is gone, as on DynamoDB.
    if (table?.CreationDateTime !== change.created) return;
    const indexDb = (index: string) => store.getIndexDb('Global', change.tableName, index);
    for (const { index, key } of change.actions.deletes) await callback((done) => indexDb(index).del(key, done));
    for (const { index, key, item } of change.actions.puts)
      await callback((done) => indexDb(index).put(key, item, done));
  }

  /** A timer for the earliest change kept back, so none waits for an index read to land. */
  private schedule(visibleAt: number): void {
    if (this.closed || (this.timer !== undefined && this.timerAt <= visibleAt)) return;
    clearTimeout(this.timer);
    // On a virtual clock the wait is a guess; the timer looks again, and index reads apply due changes anyway.
    const delay = Math.min(Math.max(visibleAt - this.now(), 1), MAX_TIMER_MS);
    this.timerAt = visibleAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A failure here (the store closing) is the next index read's to report.
      void this.applyDue()
        .catch(() => undefined)
        .then(() => {
          let earliest = Infinity;
          for (const change of this.pending) earliest = Math.min(earliest, change.visibleAt);
          if (earliest !== Infinity) this.schedule(earliest);
        });
    }, delay);
    this.timer.unref();
  }
}

function checkedMaxMs(maxMs: number): number {
  if (!(Number.isFinite(maxMs) && maxMs >= 0))
    throw new Error(`indexLag.maxMs must be a number of milliseconds, 0 or more, got ${maxMs}`);
  return maxMs;
}

function callback(start: (done: (error?: Error | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => start((error) => (error ? reject(error) : resolve())));
}

/** Gives the server created with these dynalite options a lagging GSI. */
export function lagIndexes(dynaliteOptions: object, lag: IndexLag): void {
  lagsOfServers().set(dynaliteOptions, lag);
}

const LAGS = Symbol.for('store-orders.index-lags');

/**
 * The lag of each server, by the options object dynalite keeps as its store's `options`. Kept on
 * dynalite's module object with the wrappers, so a second copy of this module finds the same map.
 */
function lagsOfServers(): WeakMap<object, IndexLag> {
  const shared = db as typeof db & { [LAGS]?: WeakMap<object, IndexLag> };
  if (shared[LAGS] !== undefined) return shared[LAGS];
  const lags = new WeakMap<object, IndexLag>();
  shared[LAGS] = lags;
  const { updateIndexes, queryTable } = db;

  db.updateIndexes = (store, table, existingItem, item, done) => {
    const lag = lags.get(store.options);
    const globals = table.GlobalSecondaryIndexes ?? [];
    const written: Item | undefined = item ?? existingItem;
    if (lag === undefined || globals.length === 0 || written === undefined)
      return updateIndexes(store, table, existingItem, item, done);
    lag.defer(store, table, db.createKey(written, table), db.getIndexActions(globals, existingItem, item, table));
    // Local secondary indexes stay in step with the table: they allow strongly consistent reads.
    updateIndexes(store, { ...table, GlobalSecondaryIndexes: [] }, existingItem, item, done);
  };

  db.queryTable = (store, table, data, ...rest) => {
    const lag = lags.get(store.options);
    if (lag === undefined || data.IndexName === undefined) return queryTable(store, table, data, ...rest);
    const done = rest[rest.length - 1] as (error: unknown) => void;
    lag.applyDue().then(() => queryTable(store, table, data, ...rest), done);
  };
  return lags;
}
