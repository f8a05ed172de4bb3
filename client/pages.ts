// v2 (beta) of the typed client: what a page is and how its requests are addressed.
import type { OrderStatus } from '../lib/contract/order.ts';

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
  /** Absent on the last page. */
  nextCursor?: string;
}

export interface OrderPageQuery {
  /** Orders per page, 1 to 1,000; the server's default (100) when absent. */
  limit?: number;
  status?: OrderStatus;
  /** RFC 3339 date-time: only orders changed at or after it, in ascending updatedAt. */
  updatedSince?: string;
}

export interface SyncResult {
  /** The orders changed at or after `since`, oldest change first. */
  orders: SyncedListedOrder[];
  /**
   * The `since` of the next sync: the last updatedAt seen, or `since` when nothing changed. Orders
   * changed in that very millisecond come again next time, so deduplicate by id.
   */
  watermark: string;
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
    if (query.status !== undefined) params.set('status', query.status);
    if (query.updatedSince !== undefined) params.set('updatedSince', query.updatedSince);
  }
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  const text = params.toString();
  return `${v2BaseUrl}/store/orders${text ? `?${text}` : ''}`;
}
