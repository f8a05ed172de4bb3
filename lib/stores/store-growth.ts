// How many orders were added to the store lately, counted exactly as they are written, so that a
// listing's size check cannot be fooled by a large import. DynamoDB's ItemCount (which the orders
// repository caches for an hour) refreshes only about every six hours; orders are never deleted,
// so ItemCount plus every order added within that lag is never below the store's real size.
//
// Each write that adds orders (an import's or a seed's) ADDs its count, atomically, to the counter
// item of its hour, `orders-added#<hour>`, in the rate-limit table (its expiry keeps the table
// clean). A listing reads the counters of the lag's hours: at most GROWTH_WINDOW_HOURS GetItems.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLES } from '../contract/tables';
import { unixSeconds } from '../core/windows';
import { numberOf } from './numbers';

/**
 * Hours of additions counted on top of the item count: its refresh (about six hours) and the
 * repository's cache of it (one hour, SIZE_CACHE_MS), and the hour under way.
 */
export const GROWTH_WINDOW_HOURS = 8;

const HOUR_SECONDS = 3600;
const PREFIX = 'orders-added#';
const EXPIRES_AT = TABLES.rateLimits.ttlAttribute;

export class StoreGrowth {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts `orders` just written to the store, in the current hour's counter (one atomic ADD). */
  async added(orders: number): Promise<void> {
    if (orders <= 0) return;
    const hour = Math.floor(unixSeconds(this.now()) / HOUR_SECONDS);
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: `${PREFIX}${hour}` },
        UpdateExpression: 'ADD #count :n SET #expiresAt = :expiresAt',
        ExpressionAttributeNames: { '#count': 'count', '#expiresAt': EXPIRES_AT },
        ExpressionAttributeValues: { ':n': orders, ':expiresAt': (hour + GROWTH_WINDOW_HOURS + 1) * HOUR_SECONDS },
      }),
    );
  }

  /** Orders added within the last GROWTH_WINDOW_HOURS (the current hour included), read consistently. */
  async recentlyAdded(): Promise<number> {
    const hour = Math.floor(unixSeconds(this.now()) / HOUR_SECONDS);
    const counts = await Promise.all(
      Array.from({ length: GROWTH_WINDOW_HOURS }, async (_, back) => {
        const { Item } = await this.doc.send(
          new GetCommand({ TableName: this.table, Key: { pk: `${PREFIX}${hour - back}` }, ConsistentRead: true }),
        );
        return numberOf(Item?.count) ?? 0;
      }),
    );
    return counts.reduce((sum, n) => sum + n, 0);
  }
}
