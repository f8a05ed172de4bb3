import { orderJson, type Order } from '../../contract/order';

/**
 * The JSON array of all orders as text chunks, one per Scan page, written as the pages arrive:
 * a buffered response joins them, a streamed one writes each as it comes.
 */
export async function* ordersJsonChunks(pages: AsyncIterable<Order[]>): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const page of pages) {
    if (page.length === 0) continue;
    const chunk = page.map(orderJson).join(',');
    yield first ? chunk : `,${chunk}`;
    first = false;
  }
  yield ']';
}
