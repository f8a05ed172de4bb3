import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SyncedOrder } from '../../lib/contract/synced-order';
import { isSentinel } from '../../lib/core/sync/sentinel';
import { orderFromAttributes, syncedOrderFromAttributes } from '../../lib/stores/orders';
import type { Order } from '../../lib/contract/order';
import type { TestTables } from './dynamo';

/**
 * The orders of a table one Scan page at a time, as the SDK parses each reply: the listing's
 * reference path (before the transcoder, lib/stores/scan-transcoder.ts, wrote its JSON), read past
 * the listing so a check never depends on what it checks.
 */
export async function* referencePages(
  client: DynamoDBDocumentClient,
  table: string,
  pageSize?: number,
): AsyncGenerator<Order[]> {
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start, Limit: pageSize }));
    // The index-lag canary's sentinel is no order: no listing shows it.
    yield (page.Items ?? []).filter((item) => !isSentinel(item)).map(orderFromAttributes);
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Every order in the table, by id, read past the API so a check never depends on what it checks. */
export async function ordersById(tables: Pick<TestTables, 'doc' | 'names'>): Promise<Map<string, Order>> {
  const byId = new Map<string, Order>();
  for await (const page of referencePages(tables.doc, tables.names.orders))
    for (const order of page) byId.set(order.id, order);
  return byId;
}

/** An order with every field, its id the largest int64 and its petId one below: exact to the last digit. */
export const FULL_INT64_ORDER: Order = {
  id: '9223372036854775807',
  petId: '9223372036854775806',
  quantity: 3,
  shipDate: '2026-11-20T10:00:00.000Z',
  complete: false,
  status: 'pending',
};

/**
 * Every order with its updatedAt, by id: a strongly consistent Scan of the table past the API, the
 * store's state against which a replica is compared.
 */
export async function syncedOrdersById(client: DynamoDBClient, table: string): Promise<Map<string, SyncedOrder>> {
  const byId = new Map<string, SyncedOrder>();
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) {
      if (isSentinel(item)) continue;
      const order = syncedOrderFromAttributes(item);
      byId.set(order.id, order);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return byId;
}
