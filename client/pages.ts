// v2 (beta) of the typed client: what a page is and how its requests are addressed.
import type { OrderStatus } from '../lib/contract/order.ts';
import { SYNC_FILTERS, type SyncFilters } from '../lib/contract/sync.ts';

/** A v2 order: the v1 fields, and when it last changed (absent only on orders not yet backfilled). */
export interface SyncedListedOrder {
  id: string;
  status: OrderStatus;
  petId?: string;
  quantity?: number;
  shipDate?: string;
  complete?: boolean;
  /** ISO 8601 UTC with milliseconds. */
  updatedAt?: string;
}

export interface OrderPage {
  orders: SyncedListedOrder[];
  /**
   * On every page of a walk with both `status` and `updatedSince`: the orders changed at or after
   * `updatedSince` that are now outside `status`, as they are now. A replica of that status drops
   * its copy when it is older (`applyDeparture`).
   */
  departed?: SyncedListedOrder[];
  /** Absent on the last page. */
  nextCursor?: string;
  /**
   * On the last page only: the instant up to which every change is settled and has been delivered
   * by this walk. Give it as `updatedSince` (or `since`) next time; newer changes come again then.
   */
  watermark?: string;
}

/**
 * A walk's filters (`status`; `updatedSince`, an RFC 3339 date-time: only orders changed at or
 * after it, in ascending updatedAt), and its page size.
 */
export interface OrderPageQuery extends SyncFilters {
  /** Orders per page, 1 to 1,000; the server's default (100) when absent. */
  limit?: number;
}

export interface SyncResult {
  /** The orders changed at or after `since`, oldest change first; a change may come more than once. */
  orders: SyncedListedOrder[];
  /**
   * With `status`: the orders changed at or after `since` that are now outside it (oldest first),
   * which a replica of that status drops when its copy is older. Empty without `status`.
   */
  departed: SyncedListedOrder[];
  /**
   * The `since` of the next sync, from the server: every change up to it is settled and has been
   * delivered. Changes after it may have come too, and come again next time.
   */
  watermark: string;
}

/**
 * Applies a delivered order to a replica keyed by id: kept when its updatedAt is later than the
 * copy held (each change makes an order's updatedAt strictly later), so a repeat or an older copy
 * changes nothing. True when applied.
 */
export function applyChange(replica: Map<string, SyncedListedOrder>, order: SyncedListedOrder): boolean {
  const held = replica.get(order.id);
  if (held?.updatedAt !== undefined && (order.updatedAt === undefined || order.updatedAt <= held.updatedAt))
    return false;
  replica.set(order.id, order);
  return true;
}

/**
 * Applies a departure (an order as it is now, outside the replica's status) to a replica of that
 * status: the copy held is dropped when it is older than the departure, by the same rule as
 * `applyChange`, so a repeat or an older departure changes nothing. True when dropped.
 */
export function applyDeparture(replica: Map<string, SyncedListedOrder>, order: SyncedListedOrder): boolean {
  const held = replica.get(order.id);
  if (held === undefined) return false;
  if (held.updatedAt !== undefined && (order.updatedAt === undefined || order.updatedAt <= held.updatedAt))
    return false;
  replica.delete(order.id);
  return true;
}

/**
 * Applies one sync to a replica: its orders, then its departures. In that order a walk that
 * delivered an order and then its departure (or the reverse) leaves the later of the two, whatever
 * pages they came on. What changed: the orders applied and the copies dropped.
 */
export function applySync(
  replica: Map<string, SyncedListedOrder>,
  { orders, departed }: Pick<SyncResult, 'orders' | 'departed'>,
): { applied: SyncedListedOrder[]; dropped: SyncedListedOrder[] } {
  const applied = orders.filter((order) => applyChange(replica, order));
  const dropped = departed.filter((order) => applyDeparture(replica, order));
  return { applied, dropped };
}

/** The v2 base URL beside a v1 one: `…/v1` becomes `…/v2`. */
export function v2BaseUrlOf(v1BaseUrl: string): string {
  return v1BaseUrl.replace(/\/v1$/, '/v2');
}

/** The first page's URL; later pages carry only the cursor (it holds the filters) and the limit. */
export function pageUrl(v2BaseUrl: string, query: OrderPageQuery, cursor?: string): string {
  const params = new URLSearchParams();
  if (cursor !== undefined) params.set('cursor', cursor);
  else {
    for (const name of SYNC_FILTERS) {
      const value = query[name];
      if (value !== undefined) params.set(name, value);
    }
  }
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  const text = params.toString();
  return `${v2BaseUrl}/store/orders${text ? `?${text}` : ''}`;
}
