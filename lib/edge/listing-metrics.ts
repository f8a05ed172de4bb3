import { businessMetrics } from './metrics';
import type { OrdersJsonPage } from '../core/orders/orders-json';

/**
 * A listing's chunks as `write` makes them from the pages, counting orders and bytes on the way.
 * The counts are recorded once the last chunk has gone: a listing cut short records nothing.
 */
export async function* measuredListing(
  pages: AsyncIterable<OrdersJsonPage>,
  write: (pages: AsyncIterable<OrdersJsonPage>) => AsyncIterable<Buffer>,
): AsyncGenerator<Buffer> {
  let orders = 0;
  let bytes = 0;
  const counted = (async function* () {
    for await (const page of pages) {
      orders += page.orders;
      yield page;
    }
  })();
  for await (const chunk of write(counted)) {
    bytes += chunk.length;
    yield chunk;
  }
  businessMetrics.listing(orders, bytes);
}
