// How many orders were added to the store lately, counted exactly as they are written, so that a
// listing's size check cannot be fooled by a large import. DynamoDB's ItemCount (which the orders
// repository caches for an hour) refreshes only about every six hours; orders are never deleted,
// so ItemCount plus every order added within that lag is never below the store's real size.
//
// Each write that adds orders (an import's or a seed's) ADDs its count, atomically, to the counter
// item of its hour, `orders-added#<hour>`, in the rate-limit table (its expiry keeps the table
// clean). A listing reads the counters of the lag's hours in one BatchGetItem.
import { BatchGetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLES } from '../contract/tables';
import { unixSeconds } from '../core/limiter/windows';
import { numberOf } from './numbers';

/**
 * Hours of additions counted on top of the item count: its refresh (about six hours) and the
 * repository's cache of it (one hour, SIZE_CACHE_MS), and the hour under way.
 */
export const GROWTH_WINDOW_HOURS = 8;

const HOUR_SECONDS = 3600;
const PREFIX = 'orders-added#';
const EXPIRES_AT = TABLES.rateLimits.ttlAttribute;
/**
 * Rounds of a BatchGetItem's UnprocessedKeys retried, with backoff, before the read fails (as a
 * throttled GetItem fails once the SDK's own retries are spent). AWS: "If DynamoDB returns any
 * unprocessed items, you should retry the batch operation on those items", with exponential
 * backoff (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html).
 */
const UNPROCESSED_ROUNDS = 3;
const UNPROCESSED_BACKOFF_MS = 25;

const counterKey = (hour: number) => ({ pk: `${PREFIX}${hour}` });

type Waiter = { resolve: () => void; reject: (error: unknown) => void };

export class StoreGrowth {
  /** Orders counted by callers whose ADD has not been sent yet, and those callers. */
  private queued = 0;
  private waiters: Waiter[] = [];
  private writing = false;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts `orders` just written to the store, in the current hour's counter; resolves once the
   * count is stored. Additions made while an ADD is in flight go together in the next one, so an
   * import's 16 concurrent creates send one counter write per round instead of one per order (and
   * do not queue on the one item), while each caller still waits for its own count to be stored.
   * The hour is taken when the ADD is sent, never before the orders were written, so a count never
   * leaves the window earlier than its orders' own hour would.
   */
  added(orders: number): Promise<void> {
    if (orders <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.queued += orders;
      this.waiters.push({ resolve, reject });
      this.writeQueued();
    });
  }

  private writeQueued(): void {
    if (this.writing || this.queued === 0) return;
    const [orders, waiters] = [this.queued, this.waiters];
    [this.queued, this.waiters, this.writing] = [0, [], true];
    this.add(orders).then(
      () => waiters.forEach((w) => w.resolve()),
      (error: unknown) => waiters.forEach((w) => w.reject(error)),
    );
  }

  private async add(orders: number): Promise<void> {
    try {
      const hour = Math.floor(unixSeconds(this.now()) / HOUR_SECONDS);
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: counterKey(hour),
          UpdateExpression: 'ADD #count :n SET #expiresAt = :expiresAt',
          ExpressionAttributeNames: { '#count': 'count', '#expiresAt': EXPIRES_AT },
          ExpressionAttributeValues: { ':n': orders, ':expiresAt': (hour + GROWTH_WINDOW_HOURS + 1) * HOUR_SECONDS },
        }),
      );
    } finally {
      this.writing = false;
      this.writeQueued();
    }
  }

  /**
   * Orders added within the last GROWTH_WINDOW_HOURS (the current hour included), read
   * consistently: one BatchGetItem of the window's counters rather than a GetItem each.
   */
  async recentlyAdded(): Promise<number> {
    const hour = Math.floor(unixSeconds(this.now()) / HOUR_SECONDS);
    let keys: Record<string, unknown>[] = Array.from({ length: GROWTH_WINDOW_HOURS }, (_, back) =>
      counterKey(hour - back),
    );
    let sum = 0;
    for (let round = 0; keys.length > 0; round++) {
      if (round > UNPROCESSED_ROUNDS) throw new Error('The store-growth counters stayed unprocessed (throttled)');
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, UNPROCESSED_BACKOFF_MS * 2 ** round));
      const { Responses, UnprocessedKeys } = await this.doc.send(
        new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of Responses?.[this.table] ?? []) sum += numberOf(item.count) ?? 0;
      keys = UnprocessedKeys?.[this.table]?.Keys ?? [];
    }
    return sum;
  }
}
