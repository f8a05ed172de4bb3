// Which order event a change of the orders table is, by what v2 serves of the order (its Order fields
// and updatedAt, lib/contract/synced-order.ts): `order.created` when there was no order before,
// `order.cancelled` and `order.shipped` when it took that status, `order.updated` for any other change
// of a served field. A change of nothing served but its stamp and index keys (the sync watch's
// re-stamp of a late change, the backfill of updatedAt) raises no event: the order a receiver holds is
// the same order, and the receiver already had the change the re-stamp repeats (docs/design.md#event-delivery).
import { ORDER_FIELDS } from '../../contract/order';
import type { SyncedOrder } from '../../contract/synced-order';
import type { WebhookEventType } from '../../contract/webhooks';

/** An order as a change left it, with the stamp that names the change. */
export type StampedOrder = SyncedOrder & { updatedAt: string };

/** Whether two copies of an order serve the same Order (updatedAt aside). */
export function sameServedOrder(a: SyncedOrder, b: SyncedOrder): boolean {
  return ORDER_FIELDS.every((field) => a[field] === b[field]);
}

/**
 * The event of a change from `before` to `after` (either absent: an insert or a removal), or
 * undefined when it raises none: a removal (orders are never deleted; no event names one), an order
 * without a stamp (written before v2: no (id, updatedAt) names the change), or a change of nothing served.
 */
export function changeEventType(
  before: SyncedOrder | undefined,
  after: SyncedOrder | undefined,
): WebhookEventType | undefined {
  if (after?.updatedAt === undefined) return undefined;
  if (before === undefined) return 'order.created';
  if (sameServedOrder(before, after)) return undefined;
  if (after.status !== before.status) {
    if (after.status === 'cancelled') return 'order.cancelled';
    if (after.status === 'shipped') return 'order.shipped';
  }
  return 'order.updated';
}

/**
 * The event a replay sends for an order as it is now (`webhooks replay`): named for its status,
 * `order.created` for a pending one, since no writer of today changes a pending order otherwise; so
 * the replay of an order's last change carries that change's own event id.
 */
export function replayEventType(order: SyncedOrder): WebhookEventType {
  if (order.status === 'cancelled') return 'order.cancelled';
  if (order.status === 'shipped') return 'order.shipped';
  return 'order.created';
}
