import { DescribeTableCommand, GetItemCommand, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isOrderStatus, type Order, type OrderStatus } from '../contract/order';
import type { SyncedOrder } from '../contract/synced-order';
import { syncAttributes } from '../core/sync-keys';
import { OrderAlreadyShippedError, OrderNotFoundError, OrderNotPendingError } from '../core/order-errors';
import { mergeAsyncIterables } from '../core/async-merge';
import { conditionalWrite, ON_EMBEDDED_SERVER, type ConditionFailureItems, type Item } from './conditional';
import type { StoreGrowth } from './store-growth';

/** What a conditional `pending -> X` transition found. */
type TransitionOutcome = { kind: 'done' } | { kind: 'missing' } | { kind: 'current'; status: OrderStatus };

export interface ScanOptions {
  /** Parallel scan segments; 1 reads the table sequentially. */
  segments?: number;
  /** Items per Scan page (DynamoDB stops a page at 1 MB anyway). */
  pageSize?: number;
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

export class OrdersRepository {
  private counted: { items: number; at: number } | undefined;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => number = Date.now,
    private readonly conditionFailures: ConditionFailureItems = ON_EMBEDDED_SERVER,
    /** Where the orders this repository adds are counted; without it, the size bound is the item count alone. */
    private readonly growth?: StoreGrowth,
  ) {}

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

  /** Every order, one Scan page at a time, following pages to the end of the table. */
  scanPages(options: ScanOptions = {}): AsyncIterable<Order[]> {
    const segments = Math.max(1, options.segments ?? 1);
    if (segments === 1) return this.scanSegment(undefined, options.pageSize);
    return mergeAsyncIterables(
      Array.from({ length: segments }, (_, segment) =>
        this.scanSegment({ segment, total: segments }, options.pageSize),
      ),
    );
  }

  private async *scanSegment(
    segment: { segment: number; total: number } | undefined,
    pageSize: number | undefined,
  ): AsyncGenerator<Order[]> {
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.doc.send(
        new ScanCommand({
          TableName: this.table,
          ExclusiveStartKey: startKey,
          Limit: pageSize,
          ...(segment ? { Segment: segment.segment, TotalSegments: segment.total } : {}),
        }),
      );
      startKey = page.LastEvaluatedKey;
      yield (page.Items ?? []).map(orderFromAttributes);
    } while (startKey);
  }

  async get(id: string): Promise<Order | undefined> {
    const { Item } = await this.doc.send(
      new GetItemCommand({ TableName: this.table, Key: { id: { N: String(BigInt(id)) } }, ConsistentRead: true }),
    );
    return Item ? orderFromAttributes(Item) : undefined;
  }

  /**
   * pending -> cancelled in one conditional update. Cancelling a cancelled order succeeds again
   * (DELETE is idempotent); a shipped order is refused and left unchanged.
   */
  async cancel(id: string): Promise<void> {
    const outcome = await this.transitionFromPending(id, 'cancelled');
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
   * move an order out of a state other than pending. On a failed condition DynamoDB returns the
   * current item, or none when there is no such order; the embedded server returns none either
   * way, so there the item is read (consistently). The read can find the order pending again only
   * if it was re-created in between: the update is then retried.
   */
  private async transitionFromPending(id: string, to: Exclude<OrderStatus, 'pending'>): Promise<TransitionOutcome> {
    for (let attempt = 0; attempt < 3; attempt++) {
      // Stamped per attempt: the index keys follow the status and the time of this write.
      const also = Object.entries({ ...ALSO_SET[to], ...syncAttributes(id, to, this.nowIso()) });
      const outcome = await conditionalWrite(() =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { id: BigInt(id) },
            UpdateExpression: ['SET #status = :to', ...also.map(([name]) => `#${name} = :${name}`)].join(', '),
            ConditionExpression: '#status = :pending',
            ExpressionAttributeNames: {
              '#status': 'status',
              ...Object.fromEntries(also.map(([name]) => [`#${name}`, name])),
            },
            ExpressionAttributeValues: {
              ':to': to,
              ':pending': 'pending',
              ...Object.fromEntries(also.map(([name, value]) => [`:${name}`, value])),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      if (outcome.applied) return { kind: 'done' };
      const found = outcome.found ?? (this.conditionFailures.returnedByServer ? undefined : await this.get(id));
      if (found === undefined) return { kind: 'missing' };
      const current = found.status;
      if (!isOrderStatus(current)) throw new Error('Malformed order item in the orders table');
      if (current !== 'pending') return { kind: 'current', status: current };
    }
    throw new Error(`Order ${id} kept changing while being moved to ${to}`);
  }

  private nowIso(): string {
    return new Date(this.clock()).toISOString();
  }

  /** The item of a new order: its fields, and its v2 index keys as of its updatedAt (now by default). */
  private newItem(order: SyncedOrder): Item {
    return storedOrderItem(order, order.updatedAt ?? this.nowIso());
  }

  /** Creates the order unless its id exists; true when created. Existing orders are never touched. */
  async create(order: SyncedOrder): Promise<boolean> {
    const outcome = await conditionalWrite(() =>
      this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: this.newItem(order),
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      ),
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
      yield (page.Items ?? []).map(orderFromAttributes).map(({ id, status }) => ({ id, status }));
    } while (startKey);
  }

  /**
   * Stamps updatedAt (now) and the index keys on an order that has no updatedAt and still has the
   * status read. False when a write came first (a cancel or ship stamps the order itself; one from
   * a pre-v2 function changes the status without it, and a later run stamps that), or it is gone.
   */
  async stampUpdatedAt(id: string, status: OrderStatus): Promise<boolean> {
    const attributes = Object.entries(syncAttributes(id, status, this.nowIso()));
    const outcome = await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: BigInt(id) },
          UpdateExpression: `SET ${attributes.map(([name]) => `#${name} = :${name}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(#updatedAt) AND #status = :status',
          ExpressionAttributeNames: {
            ...Object.fromEntries(attributes.map(([name]) => [`#${name}`, name])),
            '#status': 'status',
          },
          ExpressionAttributeValues: {
            ...Object.fromEntries(attributes.map(([name, value]) => [`:${name}`, value])),
            ':status': status,
          },
        }),
      ),
    );
    return outcome.applied;
  }

  /** Unconditional bulk write, for seeding an empty table (demo data, benchmarks). */
  async putMany(orders: readonly SyncedOrder[]): Promise<void> {
    for (let i = 0; i < orders.length; i += 25) {
      let requests: Parameters<typeof batchRequest>[0] = orders
        .slice(i, i + 25)
        .map((order) => ({ PutRequest: { Item: this.newItem(order) } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
        const result = await this.doc.send(batchRequest(requests, this.table));
        requests = (result.UnprocessedItems?.[this.table] ?? []) as typeof requests;
      }
      await this.growth?.added(Math.min(25, orders.length - i));
    }
  }
}

function batchRequest(requests: { PutRequest: { Item: Item } }[], table: string): BatchWriteCommand {
  return new BatchWriteCommand({ RequestItems: { [table]: requests } });
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

/** A v2 order from its item: the v1 fields and updatedAt, when the order has one. */
export function syncedOrderFromAttributes(item: Record<string, AttributeValue>): SyncedOrder {
  const order: SyncedOrder = orderFromAttributes(item);
  const updatedAt = item.updatedAt?.S;
  if (updatedAt !== undefined) order.updatedAt = updatedAt;
  return order;
}
