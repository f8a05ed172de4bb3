import { DescribeTableCommand, GetItemCommand, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isOrderStatus, type Order, type OrderStatus } from '../contract/order';
import type { SyncedOrder } from '../contract/synced-order';
import { syncAttributes } from '../core/sync/keys';
import { isSentinel } from '../core/sync/sentinel';
import { OrderAlreadyShippedError, OrderNotFoundError, OrderNotPendingError } from '../core/orders/order-errors';
import { mergeAsyncIterables } from '../core/orders/async-merge';
import type { Deadline } from '../commons/deadline';
import { REAL_TIMERS } from '../commons/timers';
import { ordersJsonPage, type OrdersJsonPage } from '../core/orders/orders-json';
import { scanOrdersJson } from './scan-json';
import type { StampClock } from './aws-clock';
import { readOptions, type AttemptTimer } from './call-deadlines';
import { stampedWrite, type Judged } from './stamped-write';
import {
  conditionalWrite,
  ON_EMBEDDED_SERVER,
  type ConditionalOutcome,
  type ConditionFailureItems,
  type Item,
} from './conditional';
import type { StoreGrowth } from './store-growth';

/** What a conditional `pending -> X` transition found. */
type TransitionOutcome = { kind: 'done' } | { kind: 'missing' } | { kind: 'current'; status: OrderStatus };

export interface ScanOptions {
  /** Parallel scan segments; 1 reads the table sequentially. */
  segments?: number;
  /** Items per Scan page (DynamoDB stops a page at 1 MB anyway). */
  pageSize?: number;
  /** Items in each segment's first page, when it should differ: a small first page answers sooner. */
  firstPageSize?: number;
}

/** Orders per parallel Scan segment when sizing a scan to the table. */
export const ORDERS_PER_SEGMENT = 50_000;
export const MAX_SEGMENTS = 8;
/**
 * DynamoDB refreshes a table's item count about every six hours; an hour-old guess is fine. So
 * the count a container answers with may be up to about seven hours old (docs/listing-limits.md).
 */
export const SIZE_CACHE_MS = 60 * 60 * 1000;

/** Parallel segments for a table of this many items: one per ORDERS_PER_SEGMENT, at most MAX_SEGMENTS. */
export function segmentsForItemCount(itemCount: number): number {
  return Math.min(MAX_SEGMENTS, Math.max(1, Math.ceil(itemCount / ORDERS_PER_SEGMENT)));
}

/** What a move out of pending writes besides the status: shipping fulfils the order (`complete`). */
const ALSO_SET: Record<Exclude<OrderStatus, 'pending'>, Partial<Pick<Order, 'complete'>>> = {
  shipped: { complete: true },
  cancelled: {},
};

export interface OrdersRepositoryOptions {
  /** The store-size cache's clock, epoch ms. */
  clock?: () => number;
  /** The clock updatedAt is stamped from: AWS's (lib/stores/aws-clock.ts); `clock` when absent. */
  stampClock?: StampClock;
  /**
   * The client stamped writes go through. It should make one attempt per call (the composition
   * root's is so): an SDK retry would send an old stamp again. `doc` when absent (seeding, tests).
   */
  writer?: DynamoDBDocumentClient;
  /** Whether a failed condition brings its item back; the embedded server's answer by default. */
  conditionFailures?: ConditionFailureItems;
  /** Where the orders this repository adds are counted; without it, the size bound is the item count alone. */
  growth?: StoreGrowth;
  /**
   * Each stamped write attempt's own timeout, counted from before its stamp, and its timers: the
   * composition root's per-attempt timeout. Without it, only the client's own timeout cuts them.
   */
  attemptTimer?: AttemptTimer;
}

export class OrdersRepository {
  private counted: { items: number; at: number } | undefined;
  private readonly clock: () => number;
  private readonly stamps: StampClock;
  private readonly writer: DynamoDBDocumentClient;
  private readonly conditionFailures: ConditionFailureItems;
  private readonly growth: StoreGrowth | undefined;
  private readonly attemptTimer: AttemptTimer | undefined;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    options: OrdersRepositoryOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.stamps = options.stampClock ?? { now: this.clock };
    this.writer = options.writer ?? doc;
    this.conditionFailures = options.conditionFailures ?? ON_EMBEDDED_SERVER;
    this.growth = options.growth;
    this.attemptTimer = options.attemptTimer;
  }

  /**
   * How many parallel Scan segments suit the table now: sequential for a small store, parallel
   * when it is large. Read from the table's approximate item count, at most once an hour per
   * container, so listing costs no extra call on the hot path.
   */
  async suggestedSegments(): Promise<number> {
    return segmentsForItemCount(await this.approximateOrderCount());
  }

  /**
   * DynamoDB's approximate item count of the table (DescribeTable: no read capacity, no Scan),
   * read at most once an hour per container. DynamoDB refreshes it about every six hours.
   */
  async approximateOrderCount(): Promise<number> {
    const now = this.clock();
    if (this.counted && now - this.counted.at < SIZE_CACHE_MS) return this.counted.items;
    const { Table } = await this.doc.send(new DescribeTableCommand({ TableName: this.table }));
    const items = Table?.ItemCount ?? 0;
    this.counted = { items, at: now };
    return items;
  }

  /**
   * A bound the store's size never exceeds: the (cached) item count plus every order added since it
   * can have been counted (StoreGrowth), read fresh, so a large import moves it at once. For the
   * uncompressed-size refusal; sizing the Scan keeps to the cheaper approximate count.
   */
  async orderCountBound(): Promise<number> {
    const [counted, added] = await Promise.all([this.approximateOrderCount(), this.growth?.recentlyAdded() ?? 0]);
    return counted + added;
  }

  /**
   * Every order as the listing's JSON, one Scan page at a time, following pages to the end of the
   * table: each reply written by the transcoder, or by the reference path where it declines one.
   */
  listingPages(options: ScanOptions = {}): AsyncIterable<OrdersJsonPage> {
    const segments = Math.max(1, options.segments ?? 1);
    if (segments === 1) return this.scanSegment(undefined, options);
    return mergeAsyncIterables(
      Array.from({ length: segments }, (_, segment) => this.scanSegment({ segment, total: segments }, options)),
    );
  }

  private async *scanSegment(
    segment: { segment: number; total: number } | undefined,
    { pageSize, firstPageSize = pageSize }: ScanOptions,
  ): AsyncGenerator<OrdersJsonPage> {
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const reply = await scanOrdersJson(this.doc, {
        TableName: this.table,
        ExclusiveStartKey: startKey,
        Limit: startKey ? pageSize : firstPageSize,
        ...(segment ? { Segment: segment.segment, TotalSegments: segment.total } : {}),
      });
      startKey = reply.lastKey;
      // The index-lag canary's sentinel is the table's one item that is no order: a reply holding it
      // is declined by the transcoder (scan-transcoder.ts), and the reference path leaves it out.
      yield reply.page ?? ordersJsonPage(ordersOfItems(reply.items ?? []));
    } while (startKey);
  }

  async get(id: string): Promise<Order | undefined> {
    const item = await this.item(id);
    return item ? orderFromAttributes(item) : undefined;
  }

  /** The order with its updatedAt, read consistently. */
  async getSynced(id: string, deadline?: Deadline): Promise<SyncedOrder | undefined> {
    const item = await this.item(id, deadline);
    return item ? syncedOrderFromAttributes(item) : undefined;
  }

  private async item(id: string, deadline?: Deadline): Promise<Record<string, AttributeValue> | undefined> {
    const { Item } = await this.doc.send(
      new GetItemCommand({ TableName: this.table, Key: { id: { N: String(BigInt(id)) } }, ConsistentRead: true }),
      readOptions(deadline),
    );
    return Item;
  }

  /**
   * pending -> cancelled in one conditional update. Cancelling a cancelled order succeeds again
   * (DELETE is idempotent); a shipped order is refused and left unchanged. With the request's
   * `deadline`, nothing is sent that could land after its answer.
   */
  async cancel(id: string, deadline?: Deadline): Promise<void> {
    const outcome = await this.transitionFromPending(id, 'cancelled', deadline);
    if (outcome.kind === 'missing') throw new OrderNotFoundError(id);
    if (outcome.kind === 'current' && outcome.status === 'shipped') throw new OrderAlreadyShippedError(id);
  }

  /** pending -> shipped in one conditional update; shipping a shipped order is a no-op. */
  async ship(id: string): Promise<void> {
    const outcome = await this.transitionFromPending(id, 'shipped');
    if (outcome.kind === 'missing') throw new OrderNotFoundError(id);
    if (outcome.kind === 'current' && outcome.status !== 'shipped') {
      throw new OrderNotPendingError(id, outcome.status);
    }
  }

  /**
   * The condition and the change are one atomic UpdateItem, so no interleaving of writers can
   * move an order out of a state other than pending. The stamp must also be later than the order's
   * updatedAt (strictly increasing per order, two changes in one millisecond included); a retry of
   * this write accepts its own earlier stamps (lib/stores/stamped-write.ts). On a failed condition
   * DynamoDB returns the current item; the embedded server does not, so there it is read
   * (consistently). An order found still pending had a later updatedAt than the stamp: stamped
   * after it and tried again, within the write's STAMPED_ATTEMPTS UpdateItems in all.
   */
  private async transitionFromPending(
    id: string,
    to: Exclude<OrderStatus, 'pending'>,
    deadline?: Deadline,
  ): Promise<TransitionOutcome> {
    return stampedWrite(
      this.stamps,
      ({ stamp, earlier, send }) => {
        const own = earlier.map((_, i) => `:earlier${i}`);
        const also = Object.entries({ ...ALSO_SET[to], ...syncAttributes(id, to, stamp) });
        return conditionalWrite(() =>
          this.writer.send(
            new UpdateCommand({
              TableName: this.table,
              Key: { id: BigInt(id) },
              UpdateExpression: ['SET #status = :to', ...also.map(([name]) => `#${name} = :${name}`)].join(', '),
              ConditionExpression:
                '(#status = :pending AND (attribute_not_exists(#updatedAt) OR #updatedAt < :updatedAt))' +
                (own.length > 0 ? ` OR (#status = :to AND #updatedAt IN (${own.join(', ')}))` : ''),
              ExpressionAttributeNames: {
                '#status': 'status',
                ...Object.fromEntries(also.map(([name]) => [`#${name}`, name])),
              },
              ExpressionAttributeValues: {
                ':to': to,
                ':pending': 'pending',
                ...Object.fromEntries(also.map(([name, value]) => [`:${name}`, value])),
                ...Object.fromEntries(earlier.map((value, i) => [`:earlier${i}`, value])),
              },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
            send,
          ),
        );
      },
      {
        timer: this.attemptTimer,
        ...(deadline ? { deadline } : {}),
        // Read after the attempt's own time: what the failed condition met.
        judge: async (outcome: ConditionalOutcome<unknown>): Promise<Judged<TransitionOutcome>> => {
          if (outcome.applied) return { result: { kind: 'done' } };
          const found = outcome.found
            ? { status: outcome.found.status, updatedAt: outcome.found.updatedAt }
            : this.conditionFailures.returnedByServer
              ? undefined
              : await this.getSynced(id, deadline);
          if (found === undefined) return { result: { kind: 'missing' } };
          const current = found.status;
          if (!isOrderStatus(current)) throw new Error('Malformed order item in the orders table');
          if (current !== 'pending') return { result: { kind: 'current', status: current } };
          return { stampedLater: typeof found.updatedAt === 'string' ? found.updatedAt : undefined };
        },
      },
    );
  }

  /** The item of an order: its fields, and its v2 index keys as of `updatedAt`. */
  private itemOf(order: Order, updatedAt: string): Item {
    return storedOrderItem(order, updatedAt);
  }

  /**
   * Creates the order unless its id exists, stamped now; true when created. Existing orders are
   * never touched. A retry accepts its own earlier attempts, so an attempt that landed unanswered
   * still counts as this create.
   */
  async create(order: Order): Promise<boolean> {
    const outcome = await stampedWrite(
      this.stamps,
      ({ stamp, earlier, send }) => {
        const own = earlier.map((_, i) => `:earlier${i}`);
        return conditionalWrite(() =>
          this.writer.send(
            new PutCommand({
              TableName: this.table,
              Item: this.itemOf(order, stamp),
              ConditionExpression:
                'attribute_not_exists(id)' + (own.length > 0 ? ` OR #updatedAt IN (${own.join(', ')})` : ''),
              ...(own.length > 0
                ? {
                    ExpressionAttributeNames: { '#updatedAt': 'updatedAt' },
                    ExpressionAttributeValues: Object.fromEntries(earlier.map((value, i) => [`:earlier${i}`, value])),
                  }
                : {}),
            }),
            send,
          ),
        );
      },
      { timer: this.attemptTimer },
    );
    // Counted once written: an order that already existed adds nothing.
    if (outcome.applied) await this.growth?.added(1);
    return outcome.applied;
  }

  /**
   * The orders written before v2 (no updatedAt), a Scan page at a time: the backfill's work list.
   * A filtered Scan reads the whole table, once, which is what a backfill is for.
   */
  async *ordersWithoutUpdatedAt(pageSize = 1_000): AsyncGenerator<{ id: string; status: OrderStatus }[]> {
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.doc.send(
        new ScanCommand({
          TableName: this.table,
          ProjectionExpression: 'id, #status',
          FilterExpression: 'attribute_not_exists(updatedAt)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExclusiveStartKey: startKey,
          Limit: pageSize,
        }),
      );
      startKey = page.LastEvaluatedKey;
      yield ordersOfItems(page.Items ?? []).map(({ id, status }) => ({ id, status }));
    } while (startKey);
  }

  /**
   * Stamps updatedAt (now) and the index keys on an order that has no updatedAt and still has the
   * status read. False when a write came first (a cancel or ship stamps the order itself; one from
   * a pre-v2 function changes the status without it, and a later run stamps that), or it is gone.
   */
  async stampUpdatedAt(id: string, status: OrderStatus): Promise<boolean> {
    const outcome = await stampedWrite(
      this.stamps,
      ({ stamp, earlier, send }) => {
        const attributes = Object.entries(syncAttributes(id, status, stamp));
        const own = earlier.map((_, i) => `:earlier${i}`);
        const unstamped =
          own.length > 0
            ? `(attribute_not_exists(#updatedAt) OR #updatedAt IN (${own.join(', ')}))`
            : 'attribute_not_exists(#updatedAt)';
        return conditionalWrite(() =>
          this.writer.send(
            new UpdateCommand({
              TableName: this.table,
              Key: { id: BigInt(id) },
              UpdateExpression: `SET ${attributes.map(([name]) => `#${name} = :${name}`).join(', ')}`,
              ConditionExpression: `attribute_exists(id) AND ${unstamped} AND #status = :status`,
              ExpressionAttributeNames: {
                ...Object.fromEntries(attributes.map(([name]) => [`#${name}`, name])),
                '#status': 'status',
              },
              ExpressionAttributeValues: {
                ...Object.fromEntries(attributes.map(([name, value]) => [`:${name}`, value])),
                ...Object.fromEntries(earlier.map((value, i) => [`:earlier${i}`, value])),
                ':status': status,
              },
            }),
            send,
          ),
        );
      },
      { timer: this.attemptTimer },
    );
    return outcome.applied;
  }

  /**
   * Unconditional bulk write, for seeding an empty table before it serves (demo data, benchmarks,
   * tests): a given updatedAt is kept (a fixture's history); otherwise each batch attempt stamps
   * its items anew. BatchWriteItem takes no condition, so this is no writer for a live table. Each
   * batch is a stamped write of its own (its attempts cut at their timeout, from before the stamp);
   * items DynamoDB leaves unprocessed are sent again after a pause, on the same timers.
   */
  async putMany(orders: readonly SyncedOrder[]): Promise<void> {
    const timers = this.attemptTimer?.timers ?? REAL_TIMERS;
    for (let i = 0; i < orders.length; i += 25) {
      let pending = orders.slice(i, i + 25);
      for (let round = 0; pending.length > 0; round++) {
        if (round > 0) await new Promise<void>((r) => timers.after(Math.min(1000, 25 * 2 ** round), r));
        const batch = pending;
        const unprocessed = await stampedWrite(
          this.stamps,
          async ({ stamp, send }) => {
            const items = batch.map((order) => this.itemOf(order, order.updatedAt ?? stamp));
            const result = await this.writer.send(
              new BatchWriteCommand({
                RequestItems: { [this.table]: items.map((Item) => ({ PutRequest: { Item } })) },
              }),
              send,
            );
            return new Set(
              (result.UnprocessedItems?.[this.table] ?? []).map((request) => String(request.PutRequest?.Item?.id)),
            );
          },
          { timer: this.attemptTimer },
        );
        pending = batch.filter((order) => unprocessed.has(String(BigInt(order.id))));
      }
      await this.growth?.added(Math.min(25, orders.length - i));
    }
  }
}

/**
 * The item every write of an order stores: its fields, and its v2 index keys as of `updatedAt`. The
 * cost model (infra/listing-cost.ts) sizes a Scan by it.
 */
export function storedOrderItem(order: Order, updatedAt: string): Item {
  return { ...orderToItem(order), ...syncAttributes(order.id, order.status, updatedAt) };
}

export function orderToItem(order: Order): Item {
  return {
    id: BigInt(order.id),
    petId: order.petId === undefined ? undefined : BigInt(order.petId),
    quantity: order.quantity,
    shipDate: order.shipDate,
    complete: order.complete,
    status: order.status,
  };
}

/**
 * An order from its item as DynamoDB sends it. Reads go through the plain client, not the document
 * client: a number's `N` already is its exact digits, and skipping the unmarshalled copy of every
 * Scan page saves a sixth of a listing's CPU and much of its garbage.
 */
export function orderFromAttributes(item: Record<string, AttributeValue>): Order {
  const id = item.id?.N;
  const status = item.status?.S;
  if (id === undefined || !isOrderStatus(status)) throw new Error('Malformed order item in the orders table');
  const order: Order = { id, status };
  const petId = item.petId?.N;
  if (petId !== undefined) order.petId = petId;
  const quantity = item.quantity?.N;
  if (quantity !== undefined) order.quantity = Number(quantity);
  const shipDate = item.shipDate?.S;
  if (shipDate !== undefined) order.shipDate = shipDate;
  const complete = item.complete?.BOOL;
  if (complete !== undefined) order.complete = complete;
  return order;
}

/**
 * The orders among a page of the table's items: every item but the index-lag canary's sentinel
 * (isSentinel, lib/core/sync/sentinel.ts), which is no order and no listing shows.
 */
export function ordersOfItems(items: readonly Record<string, AttributeValue>[]): Order[] {
  return items.filter((item) => !isSentinel(item)).map(orderFromAttributes);
}

/** A v2 order from its item: the v1 fields and updatedAt, when the order has one. */
export function syncedOrderFromAttributes(item: Record<string, AttributeValue>): SyncedOrder {
  const order: SyncedOrder = orderFromAttributes(item);
  const updatedAt = item.updatedAt?.S;
  if (updatedAt !== undefined) order.updatedAt = updatedAt;
  return order;
}
