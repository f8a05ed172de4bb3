import type { Order } from '../../lib/contract/order';
import type { OrdersRepository } from '../../lib/stores/orders';

/** Every order in the table, by id, read past the API so a check never depends on what it checks. */
export async function ordersById(orders: Pick<OrdersRepository, 'scanPages'>): Promise<Map<string, Order>> {
  const byId = new Map<string, Order>();
  for await (const page of orders.scanPages()) for (const order of page) byId.set(order.id, order);
  return byId;
}

/** An order with every field, its id the largest int64 and its petId one below: exact to the last digit. */
export const FULL_INT64_ORDER: Order = {
  id: '9223372036854775807',
  petId: '9223372036854775806',
  quantity: 3,
  shipDate: '2026-11-20T10:00:00.000Z',
  complete: false,
  status: 'pending',
};
