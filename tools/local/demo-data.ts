import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TableNames } from '../../lib/contract/tables';
import { DEMO_ORDERS, DEMO_PETS, demoKey, demoLimits } from './demo-content';
import { hashApiKey, keyIdFromHash } from '../../lib/core/access/key-format';
import { isSentinel } from '../../lib/core/sync/sentinel';
import type { ApiKeysRepository } from '../../lib/stores/api-keys';
import { createApiKey } from '../../lib/stores/key-service';
import type { OrdersRepository } from '../../lib/stores/orders';
import type { PetsRepository } from '../../lib/stores/pets';
import { limitsFor, PLAN_NAMES, type Limits, type PlanName } from '../../lib/contract/plans';

/**
 * Whether the store holds no order and no key: the only store the demo data may go into, so it
 * never lands among a user's own orders. New tables are empty; so are the tables a start left
 * behind when it failed before seeding (a server slow to make them ACTIVE, an interrupted start).
 */
export async function storeIsEmpty(client: DynamoDBClient, tables: TableNames): Promise<boolean> {
  for (const TableName of [tables.orders, tables.apiKeys]) {
    // Two items: the orders table's index-lag sentinel, which is no order, may be one of them.
    const { Items = [] } = await client.send(new ScanCommand({ TableName, Limit: 2, ConsistentRead: true }));
    if (Items.some((item) => !isSentinel(item))) return false;
  }
  return true;
}

/** Writes the demo orders, their pets and the keys (tools/local/demo-content.ts) into an empty store. */
export async function seedDemoData(
  orders: OrdersRepository,
  keys: ApiKeysRepository,
  pets: PetsRepository,
): Promise<void> {
  for (const order of DEMO_ORDERS) await orders.create(order);
  for (const pet of DEMO_PETS) await pets.create(pet);
  for (const plan of PLAN_NAMES)
    await createApiKey(keys, { plan, name: `demo ${plan}`, limits: demoLimits(plan) }, { key: demoKey(plan) });
}

/** The demo keys that are stored and not revoked: the ones worth printing. */
export async function workingDemoKeys(
  keys: ApiKeysRepository,
): Promise<{ plan: PlanName; key: string; limits: Limits }[]> {
  const working = [];
  for (const plan of PLAN_NAMES) {
    const key = demoKey(plan);
    const record = await keys.get(keyIdFromHash(hashApiKey(key)));
    if (record && record.revokedAt === undefined) working.push({ plan, key, limits: limitsFor(plan, record.limits) });
  }
  return working;
}
