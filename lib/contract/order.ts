// The Order record. Ids are int64 and are kept as canonical decimal strings from the path or the
// table to the JSON text, so no digit is ever lost to a JS number.

export const ORDER_STATUSES = ['pending', 'shipped', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface Order {
  /** int64, canonical decimal digits. */
  id: string;
  /** int64, canonical decimal digits. */
  petId?: string;
  quantity?: number;
  /** ISO 8601 date-time in UTC, e.g. 2026-11-20T10:00:00.000Z. */
  shipDate?: string;
  /** Fulfilled: true exactly when the order has shipped. Shipping sets it; nothing else changes it. */
  complete?: boolean;
  status: OrderStatus;
}

/** Every field of an Order, once: a field added to the interface and not here fails the type check. */
const FIELD_SET: Record<keyof Order, true> = {
  id: true,
  petId: true,
  quantity: true,
  shipDate: true,
  complete: true,
  status: true,
};
export const ORDER_FIELDS = Object.keys(FIELD_SET) as readonly (keyof Order)[];

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
/** quantity has no format in the specification; it is held to int32, OpenAPI's default integer. */
export const QUANTITY_MAX = 2_147_483_647;

/** Canonical decimal integer: no sign but a minus, no leading zeros, no exponent, no fraction. */
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]{0,18})$/;

/** The canonical decimal form of an int64 written as text, or undefined when it is anything else. */
export function canonicalInt64(text: string): string | undefined {
  if (!CANONICAL_INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX ? text : undefined;
}

export function isOrderStatus(value: unknown): value is OrderStatus {
  return typeof value === 'string' && (ORDER_STATUSES as readonly string[]).includes(value);
}

/**
 * One order as JSON text. Orders have a fixed set of fields, so writing them directly is exact
 * (ids go out as raw digits) and faster than a generic serialiser. Absent fields are left out.
 */
export function orderJson(order: Order): string {
  let json = `{"id":${order.id}`;
  if (order.petId !== undefined) json += `,"petId":${order.petId}`;
  if (order.quantity !== undefined) json += `,"quantity":${order.quantity}`;
  if (order.shipDate !== undefined) json += `,"shipDate":${JSON.stringify(order.shipDate)}`;
  if (order.complete !== undefined) json += `,"complete":${order.complete}`;
  return `${json},"status":"${order.status}"}`;
}
