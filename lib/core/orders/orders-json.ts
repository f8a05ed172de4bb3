import { orderJson, type Order } from '../../contract/order';

/**
 * One Scan page's orders as the listing writes them: each order's JSON after a comma
 * (`,{…},{…}`, empty for no order), and how many there are.
 */
export interface OrdersJsonPage {
  orders: number;
  json: Buffer;
}

/**
 * A page as the reference path writes it, orderJson of each order: what the listing writes for a
 * page the transcoder declines (lib/stores/scan-transcoder.ts), and what it must write byte for
 * byte for the pages it takes.
 */
export function ordersJsonPage(orders: readonly Order[]): OrdersJsonPage {
  return { orders: orders.length, json: Buffer.from(orders.map((order) => `,${orderJson(order)}`).join('')) };
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

/**
 * The JSON array of all orders as byte chunks, one per Scan page, written as the pages arrive:
 * a buffered response joins them, a streamed one writes each as it comes.
 */
export async function* ordersJsonChunks(pages: AsyncIterable<OrdersJsonPage>): AsyncGenerator<Buffer> {
  let first = true;
  yield OPEN;
  for await (const page of pages) {
    if (page.orders === 0) continue;
    // The page's leading comma separates it from the page before; the first has none before it.
    yield first ? page.json.subarray(1) : page.json;
    first = false;
  }
  yield CLOSE;
}
