// The v2 Order: v1's record and when it last changed. v1 answers never carry updatedAt.
import { orderJson, type Order } from './order.ts';

export interface SyncedOrder extends Order {
  /**
   * When the order was last written (created, imported, cancelled, shipped), ISO 8601 in UTC with
   * milliseconds. Absent only on an order written before v2 that the backfill has not reached.
   */
  updatedAt?: string;
}

/** One v2 order as JSON text: v1's fields, then updatedAt when the order has it. */
export function syncedOrderJson(order: SyncedOrder): string {
  const v1 = orderJson(order);
  if (order.updatedAt === undefined) return v1;
  return `${v1.slice(0, -1)},"updatedAt":${JSON.stringify(order.updatedAt)}}`;
}
