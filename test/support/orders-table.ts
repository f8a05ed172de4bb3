import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SyncedOrder } from '../../lib/contract/synced-order';
import { isSentinel } from '../../lib/core/sync/sentinel';
import { syncedOrderFromAttributes } from '../../lib/stores/orders';
import type { Order } from '../../lib/contract/order';
import type { OrdersRepository } from '../../lib/stores/orders';

/** Every order in the table, by id, read past the API so a check never depends on what it checks. */
export async function ordersById(orders: Pick<OrdersRepository, 'scanPages'>): Promise<Map<string, Order>> {
  const byId = new Map<string, Order>();
  for await (const page of orders.scanPages()) for (const order of page) byId.set(order.id, order);
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
