// The v2 listing's page reads. Unfiltered: one Scan page of the table. Filtered: Queries on the
// sharded index (lib/contract/tables.ts ORDER_INDEXES), merged in (updatedAt, id) order. Either
// way a page reads items in proportion to its size, never to the store (docs/design.md). A walk
// with a status and updatedSince reads every change since (the by-update index) and tells the
// orders now outside its status apart, as departed.
import { QueryCommand, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SyncedOrder } from '../contract/synced-order';
import { isUnfiltered, SYNC_FILTERS, type SyncFilter, type SyncFilters } from '../contract/sync';
import { SYNC_FILTER_DECLARATIONS, type IndexRead } from '../contract/sync-filters';
import { ORDER_INDEXES, SYNC_SHARDS, updateShard, type IndexSpec } from '../contract/tables';
import type { PagePosition } from '../core/sync/cursor';
import { isSentinel } from '../core/sync/sentinel';
import type { Deadline } from '../commons/deadline';
import { readOptions, type SendOptions } from './call-deadlines';
import { syncedOrderFromAttributes } from './orders';

export interface OrderPage {
  orders: SyncedOrder[];
  /**
   * With a status and updatedSince only: the orders changed since that are now outside the status,
   * in the same (updatedAt, id) order, counted with `orders` against the page's limit.
   */
  departed?: SyncedOrder[];
  /** Where the next page starts; absent when nothing can follow. */
  next?: PagePosition;
}

type Item = Record<string, AttributeValue>;

/** A filter's part of the walk's index read, from its declaration; none when the walk lacks it. */
function filterRead<F extends SyncFilter>(name: F, filters: SyncFilters): Partial<IndexRead> {
  const value = filters[name];
  return value === undefined ? {} : SYNC_FILTER_DECLARATIONS[name].read(value, filters);
}

/** What a filtered walk's pages read: every filter's part of it, in one. */
function indexRead(filters: SyncFilters): Partial<IndexRead> {
  return SYNC_FILTERS.reduce<Partial<IndexRead>>((read, name) => ({ ...read, ...filterRead(name, filters) }), {});
}

/** One shard of the index, read a chunk at a time as the merge takes from it. */
class ShardReader {
  private buffer: { key: string; item: Item }[] = [];
  private startKey: Item | undefined;
  private ended = false;

  constructor(
    private readonly query: (startKey: Item | undefined) => Promise<{ items: Item[]; last?: Item }>,
    private readonly sortKey: string,
    readonly shard: number,
    public after: string | null,
  ) {}

  /** The next entry without taking it; undefined when the shard has no more. */
  async peek(): Promise<{ key: string; item: Item } | undefined> {
    while (this.buffer.length === 0 && !this.ended) {
      const { items, last } = await this.query(this.startKey);
      this.buffer = items.map((item) => ({ key: item[this.sortKey]?.S ?? '', item }));
      this.startKey = last;
      this.ended = last === undefined;
    }
    return this.buffer[0];
  }

  take(): Item {
    const entry = this.buffer.shift();
    if (!entry) throw new Error('take() before peek()');
    this.after = entry.key;
    return entry.item;
  }

  /** Read to its end and every entry taken. */
  get exhausted(): boolean {
    return this.ended && this.buffer.length === 0;
  }
}

export class OrderPages {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** With the request's `deadline`, no read is sent once the request is answered. */
  async page(
    filters: SyncFilters,
    position: PagePosition | undefined,
    limit: number,
    deadline?: Deadline,
  ): Promise<OrderPage> {
    const send = readOptions(deadline);
    if (isUnfiltered(filters)) {
      return this.scanPage(position?.kind === 'scan' ? position.after : undefined, limit, send);
    }
    return this.indexPage(filters, position?.kind === 'index' ? position : undefined, limit, send);
  }

  private async scanPage(after: string | undefined, limit: number, send: SendOptions): Promise<OrderPage> {
    const page = await this.client.send(
      new ScanCommand({
        TableName: this.table,
        Limit: limit,
        ...(after !== undefined ? { ExclusiveStartKey: { id: { N: after } } } : {}),
      }),
      send,
    );
    const last = page.LastEvaluatedKey?.id?.N;
    return {
      // The index-lag canary's sentinel is no order: a page that met it is one order short.
      orders: (page.Items ?? []).filter((item) => !isSentinel(item)).map(syncedOrderFromAttributes),
      ...(last !== undefined ? { next: { kind: 'scan', after: last } } : {}),
    };
  }

  /**
   * Each shard is read a chunk at a time (about its share of the page, plus one), and the merge
   * takes the smallest update key until the page is full: a page reads about twice its size at most.
   * What is read is the filters' (lib/contract/sync-filters.ts): a status alone reads its own
   * partitions of the by-status index; with updatedSince the walk reads every change since on the
   * by-update index, so that it sees the orders that left the status.
   */
  private async indexPage(
    filters: SyncFilters,
    position: Extract<PagePosition, { kind: 'index' }> | undefined,
    limit: number,
    send: SendOptions,
  ): Promise<OrderPage> {
    const read = indexRead(filters);
    // Without a filter that picks them: every change, on the by-update index.
    const { index, key: partitionOf } = read.partition ?? { index: ORDER_INDEXES.byUpdate, key: updateShard };
    const chunk = Math.ceil(limit / SYNC_SHARDS) + 1;
    const done = new Set(position?.done ?? []);
    const readers: ShardReader[] = [];
    for (let shard = 0; shard < SYNC_SHARDS; shard++) {
      if (done.has(shard)) continue;
      const after = position?.after[shard] ?? null;
      const query = (startKey: Item | undefined) =>
        this.queryShard(index, partitionOf(shard), after, read.from, chunk, startKey, send);
      readers.push(new ShardReader(query, index.sortKey.name, shard, after));
    }

    const orders: SyncedOrder[] = [];
    const departed: SyncedOrder[] = [];
    const heads = await Promise.all(readers.map((reader) => reader.peek()));
    for (let taken = 0; taken < limit;) {
      let best = -1;
      heads.forEach((head, i) => {
        if (head && (best < 0 || head.key < (heads[best]?.key ?? ''))) best = i;
      });
      const reader = readers[best];
      if (!reader) break;
      const order = syncedOrderFromAttributes(reader.take());
      (read.departed?.(order) ? departed : orders).push(order);
      heads[best] = ++taken < limit ? await reader.peek() : undefined;
    }

    const page = { orders, ...(read.departed ? { departed } : {}) };
    for (const reader of readers) if (reader.exhausted) done.add(reader.shard);
    if (done.size === SYNC_SHARDS) return page;
    const after = Array.from({ length: SYNC_SHARDS }, (_, shard) => position?.after[shard] ?? null);
    for (const reader of readers) after[reader.shard] = reader.after;
    return { ...page, next: { kind: 'index', after, done: [...done].sort((a, b) => a - b) } };
  }

  private async queryShard(
    index: IndexSpec,
    partition: string,
    after: string | null,
    since: string | undefined,
    limit: number,
    startKey: Item | undefined,
    send: SendOptions,
  ): Promise<{ items: Item[]; last?: Item }> {
    // After a key already taken, strictly; else from the first key at or after `since`.
    const bound = after !== null ? ' AND #sk > :bound' : since !== undefined ? ' AND #sk >= :bound' : '';
    const boundValue = after ?? since;
    const page = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: index.name,
        KeyConditionExpression: `#pk = :pk${bound}`,
        ExpressionAttributeNames: { '#pk': index.partitionKey.name, ...(bound ? { '#sk': index.sortKey.name } : {}) },
        ExpressionAttributeValues: {
          ':pk': { S: partition },
          ...(bound && boundValue !== undefined ? { ':bound': { S: boundValue } } : {}),
        },
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
      send,
    );
    return { items: page.Items ?? [], ...(page.LastEvaluatedKey ? { last: page.LastEvaluatedKey } : {}) };
  }
}
