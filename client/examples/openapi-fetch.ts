// Calling the API through a client generated from openapi.json (openapi-typescript types,
// openapi-fetch requests) without losing digits of int64 ids. The types are generated with ids as
// strings (README, "Interface contract and client"), into ./store-orders-api.d.ts beside this file;
// this file is not part of the project's own type check, since those types are not committed. A
// test generates them, type-checks this file against them and runs it against the local stack.
import { isLosslessNumber, parse } from 'lossless-json';
import createClient from 'openapi-fetch';
import type { components, paths } from './store-orders-api';

export type Order = components['schemas']['Order'];
export type ApiError = components['schemas']['Error'];

/** The int64 fields; every other JSON number of an order fits a double. */
const INT64_FIELDS = new Set(['id', 'petId']);

export function storeOrdersClient(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
}

export type StoreOrdersClient = ReturnType<typeof storeOrdersClient>;

/**
 * `parseAs: 'text'` keeps openapi-fetch away from JSON.parse, which would turn
 * 9223372036854775807 into the double 2^63 (printed 9223372036854776000); lossless-json then gives
 * the ids as exact strings.
 */
export async function listOrders(api: StoreOrdersClient): Promise<Order[]> {
  const { data, error, response } = await api.GET('/store/orders', { parseAs: 'text' });
  if (data === undefined)
    throw new Error(`listOrders: HTTP ${response.status} ${(error as ApiError | undefined)?.code ?? ''}`);
  return parse(data, (key, value) => {
    if (!isLosslessNumber(value)) return value;
    return INT64_FIELDS.has(key) ? value.toString() : value.valueOf();
  }) as Order[];
}

/** The id goes into the path as the string it is: no JS number on the way. */
export async function cancelOrder(api: StoreOrdersClient, orderId: string): Promise<void> {
  const { error, response } = await api.DELETE('/store/orders/{orderId}', { params: { path: { orderId } } });
  if (!response.ok)
    throw new Error(`cancelOrder: HTTP ${response.status} ${(error as ApiError | undefined)?.code ?? ''}`);
}
