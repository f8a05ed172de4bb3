// When an uncompressed listing is refused before its first byte, and when the largest listings are
// alarmed on: Lambda cuts a streamed response at 200 MB (lib/contract/streaming-limits.ts), after status 200
// has gone, so a listing that cannot fit must never start. docs/listing-limits.md explains the figures.
import { STREAMING_LIMITS } from '../../contract/streaming-limits';
import { INT64_MIN, orderJson, QUANTITY_MAX, type Order } from '../../contract/order';

/**
 * The longest order JSON the store can hold: every field present at its longest (stored shipDates
 * all have the 24-character UTC form the admin import writes), plus the comma between orders.
 */
const LONGEST_ORDER: Order = {
  id: String(INT64_MIN),
  petId: String(INT64_MIN),
  quantity: QUANTITY_MAX,
  shipDate: '2026-11-20T10:00:00.000Z',
  complete: false,
  status: 'cancelled',
};
export const MAX_ORDER_JSON_BYTES = Buffer.byteLength(orderJson(LONGEST_ORDER)) + 1;

/**
 * Headroom over the table's item count, which DynamoDB refreshes about every six hours and the
 * repository caches for an hour more: the store may have grown this much since it was counted.
 */
export const ITEM_COUNT_GROWTH_MARGIN = 0.1;

/**
 * From this many orders (DynamoDB's approximate item count) an uncompressed listing is refused:
 * even if every order were the longest possible and the store had grown by the margin since it was
 * counted, the JSON would still fit in one streamed response.
 */
export const UNCOMPRESSED_LISTING_MAX_ORDERS = Math.floor(
  STREAMING_LIMITS.maxResponseBytes / MAX_ORDER_JSON_BYTES / (1 + ITEM_COUNT_GROWTH_MARGIN),
);

/** True when a store of about `approximateOrders` must not be listed uncompressed. */
export function tooLargeUncompressed(approximateOrders: number, maxOrders = UNCOMPRESSED_LISTING_MAX_ORDERS): boolean {
  return approximateOrders >= maxOrders;
}
