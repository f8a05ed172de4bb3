// Orders, tables and proxy events for the suites, built on the tests' own table helper.

import type { APIGatewayProxyEvent } from 'aws-lambda';
import { routeByOperation } from '../../lib/contract/routes';
import { callerContext, type Caller } from '../../lib/core/access/caller';
import { createApiKey } from '../../lib/stores/key-service';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import type { Order } from '../../lib/contract/order';
import { keysStore, seedingOrdersStore } from '../../lib/root/stores';
import { closeClients } from '../../lib/root/wiring';
import { createTestTables } from '../../test/support/dynamo';
import { buildProxyEvent } from '../../tools/local/proxy-event';

/** Far above any id a test or demo uses, and int64-sized like real ones. */
const ID_BASE = 7_000_000_000_000_000n;
export const orderIdAt = (index: number): string => String(ID_BASE + BigInt(index));

/** Every field set, so each item is as large as a real one. */
const PENDING = { petId: '100007', quantity: 2, shipDate: '2026-11-20T10:00:00.000Z', complete: false } as const;
export const pendingOrders = (count: number, first = 0): Order[] =>
  Array.from({ length: count }, (_, i) => ({ id: orderIdAt(first + i), ...PENDING, status: 'pending' }));

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

/** Orders whose fields vary as real ones do, so compressed sizes are not flattered by repetition. */
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

/** Fresh tables holding `count` pending orders, written in six lanes (the embedded server is faster so). */
export async function seededTables(endpoint: string, count: number) {
  const tables = await createTestTables(endpoint);
  // The composition root's stores, on a wiring of the bench's own (closed with the tables).
  const wiring = { endpoint, tables: tables.names };
  const orders = seedingOrdersStore(wiring);
  const share = Math.ceil(count / 6);
  const lanes = [0, 1, 2, 3, 4, 5].map((lane) => [lane * share, Math.min(count, (lane + 1) * share)] as const);
  await Promise.all(lanes.map(([from, to]) => orders.putMany(pendingOrders(Math.max(0, to - from), from))));
  // An enterprise key with the highest custom limits, so the limiter admits everything it is asked.
  const limits = MAX_CUSTOM_LIMITS;
  const { key, record } = await createApiKey(keysStore(wiring), { plan: 'enterprise', name: 'bench', limits });
  const caller: Caller = { keyId: record.id, plan: 'enterprise', limits };
  const drop = async () => {
    closeClients(wiring);
    await tables.drop();
  };
  return { ...tables, drop, orders, key, caller };
}

/** A proxy event as the gateway passes it after the authorizer, from the local gateway's own builder. */
export function proxyEvent(caller: Caller, orderId?: string): APIGatewayProxyEvent {
  const route = routeByOperation(orderId === undefined ? 'listOrders' : 'cancelOrder');
  return buildProxyEvent({
    route,
    path: orderId === undefined ? '/store/orders' : `/store/orders/${orderId}`,
    pathParameters: orderId === undefined ? null : { orderId },
    authorizer: { principalId: caller.keyId, context: callerContext(caller) },
  });
}
