import { createHash } from 'node:crypto';
import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TableNames } from '../../lib/contract/tables';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../../lib/core/key-format';
import type { ApiKeysRepository } from '../../lib/stores/api-keys';
import { createApiKey } from '../../lib/stores/key-service';
import type { Order } from '../../lib/contract/order';
import type { OrdersRepository } from '../../lib/stores/orders';
import type { Pet, PetStatus } from '../../lib/contract/pet';
import type { PetsRepository } from '../../lib/stores/pets';
import { limitsFor, PLAN_NAMES, type Limits, type PlanName } from '../../lib/contract/plans';

/** Demo orders in every state, with the int64 edge cases of decisions.md. Only shipped ones are complete. */
export const DEMO_ORDERS: readonly Order[] = [
  { id: '1', petId: '101', quantity: 1, shipDate: '2026-11-20T10:00:00.000Z', complete: false, status: 'pending' },
  { id: '2', petId: '102', quantity: 2, shipDate: '2026-11-21T09:30:00.000Z', complete: false, status: 'pending' },
  { id: '3', petId: '103', quantity: 1, shipDate: '2026-11-18T14:00:00.000Z', complete: true, status: 'shipped' },
  { id: '4', petId: '104', quantity: 5, complete: false, status: 'cancelled' },
  { id: '9007199254740992', petId: '9007199254740993', quantity: 1, status: 'pending' },
  { id: '9007199254740993', petId: '9007199254740992', quantity: 1, status: 'pending' },
  {
    id: '9223372036854775807',
    petId: '9223372036854775806',
    quantity: 3,
    shipDate: '2026-12-01T00:00:00.000Z',
    complete: false,
    status: 'pending',
  },
];

const DEMO_PET_NAMES = ['Rex', 'Misty', 'Nibbles', 'Goldie', 'Biscuit', 'Pepper', 'Max'];
const DEMO_PET_STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

/** One pet for every demo order's petId (the int64 edge cases included), for GET /pets/{petId}. */
export const DEMO_PETS: readonly Pet[] = [...new Set(DEMO_ORDERS.flatMap((order) => order.petId ?? []))].map(
  (id, i) => ({
    id,
    category: { id: String((i % 2) + 1), name: i % 2 === 0 ? 'Dogs' : 'Cats' },
    name: DEMO_PET_NAMES[i % DEMO_PET_NAMES.length] ?? `Pet ${id}`,
    photoUrls: [`https://example.com/pets/${id}.jpg`],
    tags: [{ id: '1', name: 'demo' }],
    status: DEMO_PET_STATUSES[i % DEMO_PET_STATUSES.length] ?? 'available',
  }),
);

export const DEMO_ENTERPRISE_LIMITS: Limits = { perMinute: 5_000, perDay: 1_000_000 };

/**
 * Demo keys are derived from a fixed seed, so the README's curl examples work on every local
 * start. They exist only in the local stack; keys for deployed stages come from the CSPRNG.
 */
export function demoKey(plan: PlanName): string {
  let counter = 0;
  return generateApiKey((size) => {
    const out = Buffer.alloc(size);
    for (let offset = 0; offset < size; offset += 32) {
      createHash('sha256').update(`store-orders-local-demo:${plan}:${counter++}`).digest().copy(out, offset);
    }
    return out;
  });
}

function demoLimits(plan: PlanName): Limits | undefined {
  return plan === 'enterprise' ? DEMO_ENTERPRISE_LIMITS : undefined;
}

/**
 * Whether the store holds no order and no key: the only store the demo data may go into, so it
 * never lands among a user's own orders. New tables are empty; so are the tables a start left
 * behind when it failed before seeding (a server slow to make them ACTIVE, an interrupted start).
 */
export async function storeIsEmpty(client: DynamoDBClient, tables: TableNames): Promise<boolean> {
  for (const TableName of [tables.orders, tables.apiKeys]) {
    const { Count } = await client.send(
      new ScanCommand({ TableName, Limit: 1, ConsistentRead: true, Select: 'COUNT' }),
    );
    if ((Count ?? 0) > 0) return false;
  }
  return true;
}

/** Writes the demo orders, their pets and the keys into an empty store. */
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

export interface WorkingDemoKey {
  plan: PlanName;
  key: string;
  limits: Limits;
}

/** The demo keys that are stored and not revoked: the ones worth printing. */
export async function workingDemoKeys(keys: ApiKeysRepository): Promise<WorkingDemoKey[]> {
  const working: WorkingDemoKey[] = [];
  for (const plan of PLAN_NAMES) {
    const key = demoKey(plan);
    const record = await keys.get(keyIdFromHash(hashApiKey(key)));
    if (record && record.revokedAt === undefined) working.push({ plan, key, limits: limitsFor(plan, record.limits) });
  }
  return working;
}
