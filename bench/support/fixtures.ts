import { buildProxyEvent } from '../../tools/local/proxy-event';
import { routeByOperation } from '../../lib/contract/routes';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiKeysRepository } from '../../lib/keys/repository';
import { createApiKey } from '../../lib/keys/service';
import { callerContext, type Caller } from '../../lib/keys/context';
import { MAX_CUSTOM_LIMITS } from '../../lib/limits/plans';
import type { Order } from '../../lib/orders/order';
import { OrdersRepository } from '../../lib/orders/repository';
import { createTestTables, type TestTables } from '../../test/support/dynamo';

/** Far above any id a test or demo uses, and int64-sized like real ones. */
const ID_BASE = 7_000_000_000_000_000n;

export const orderIdAt = (index: number): string => String(ID_BASE + BigInt(index));

/** Pending orders with every field set, so each item is as large as a real one. */
export function pendingOrders(count: number, firstIndex = 0): Order[] {
  return Array.from({ length: count }, (_, i) => {
    const k = firstIndex + i;
    return {
      id: orderIdAt(k),
      petId: String(100_000 + (k % 5_000)),
      quantity: 1 + (k % 9),
      shipDate: '2026-11-20T10:00:00.000Z',
      complete: false,
      status: 'pending',
    };
  });
}

const STATUSES = ['pending', 'shipped', 'cancelled'] as const;
const TWO_63 = 2n ** 63n;
/** Odd, so index → id is one-to-one modulo 2^63: distinct, 19-digit-like ids in no particular order. */
const ID_STRIDE = 0x5851f42d4c957f2dn;

/** A 32-bit hash of an index and a field number: the same order every run, no state between batches. */
function mix(index: number, field: number): number {
  let h = Math.imul(index ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(field + 1, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Orders whose fields vary as real ones do (ids spread over int64, any pet, quantity, ship time and
 * status), so compressed sizes are not flattered by the repetition of pendingOrders.
 */
export function variedOrders(count: number, firstIndex = 0): Order[] {
  return Array.from({ length: count }, (_, i) => {
    const k = firstIndex + i;
    const status = STATUSES[mix(k, 0) % 3] ?? 'pending';
    return {
      id: String((BigInt(k + 1) * ID_STRIDE) % TWO_63),
      petId: String(mix(k, 1) % 10_000_000),
      quantity: 1 + (mix(k, 2) % 20),
      shipDate: new Date(Date.UTC(2025, 0, 1) + (mix(k, 3) % (730 * 86_400)) * 1000).toISOString(),
      complete: status === 'shipped',
      status,
    };
  });
}

export interface BenchTables extends TestTables {
  orders: OrdersRepository;
  /** An enterprise key with the highest custom limits, so the limiter admits everything it is asked. */
  key: string;
  caller: Caller;
}

/**
 * Fresh tables (as the tests make them) holding `count` pending orders, written in parallel
 * batches: the embedded server serves writes faster with a few requests in flight.
 */
export async function seededTables(
  endpoint: string,
  count: number,
  log: (text: string) => void = () => undefined,
  make: (count: number, firstIndex: number) => Order[] = pendingOrders,
): Promise<BenchTables> {
  const tables = await createTestTables(endpoint);
  const orders = new OrdersRepository(tables.doc, tables.names.orders);
  const chunk = 5_000;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const start = next;
      next += chunk;
      await orders.putMany(make(Math.min(chunk, count - start), start));
      if (count >= 50_000 && start % 50_000 === 0) log(`  seeding: ${start}/${count}`);
    }
  };
  await Promise.all(Array.from({ length: 6 }, lane));
  const { key, record } = await createApiKey(new ApiKeysRepository(tables.doc, tables.names.apiKeys), {
    plan: 'enterprise',
    name: 'bench',
    limits: MAX_CUSTOM_LIMITS,
  });
  return { ...tables, orders, key, caller: { keyId: record.id, plan: 'enterprise', limits: MAX_CUSTOM_LIMITS } };
}

/** A proxy event as the gateway passes it after the authorizer, from the local gateway's own builder. */
export function proxyEvent(method: string, path: string, caller: Caller, orderId?: string): APIGatewayProxyEvent {
  const route = routeByOperation(orderId === undefined ? 'listOrders' : 'cancelOrder');
  if (route.method !== method) throw new Error(`${method} is not the method of ${route.operationId}`);
  return buildProxyEvent({
    route,
    path,
    pathParameters: orderId === undefined ? null : { orderId },
    authorizer: { principalId: caller.keyId, context: callerContext(caller) },
  });
}
