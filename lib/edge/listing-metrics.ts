import { businessMetrics } from './metrics';
import type { Order } from '../contract/order';

/**
 * A listing's chunks as `write` makes them from the pages, counting orders and bytes on the way.
 * The counts are recorded once the last chunk has gone: a listing cut short records nothing.
 */
export async function* measuredListing<C extends string | Uint8Array>(
  pages: AsyncIterable<Order[]>,
  write: (pages: AsyncIterable<Order[]>) => AsyncIterable<C>,
): AsyncGenerator<C> {
  let orders = 0;
  let bytes = 0;
  const counted = (async function* () {
    for await (const page of pages) {
      orders += page.length;
      yield page;
    }
  })();
  for await (const chunk of write(counted)) {
    bytes += Buffer.byteLength(chunk);
    yield chunk;
  }
  businessMetrics.listing(orders, bytes);
}
