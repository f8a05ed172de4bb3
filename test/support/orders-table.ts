import type { Order } from '../../lib/contract/order';
import type { OrdersRepository } from '../../lib/stores/orders';

/** Every order in the table, by id, read past the API so a check never depends on what it checks. */
export async function ordersById(orders: Pick<OrdersRepository, 'scanPages'>): Promise<Map<string, Order>> {
  const byId = new Map<string, Order>();
  for await (const page of orders.scanPages()) for (const order of page) byId.set(order.id, order);
  return byId;
}
