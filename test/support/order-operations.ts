import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OrderStatus } from '../../lib/contract/order';
import { OrderNotFoundError, OrderNotPendingError } from '../../lib/core/orders/order-errors';
import type { OrdersRepository } from '../../lib/stores/orders';
import type { Admin } from './admin-harness';
import type { OrderEvent } from './order-history';
import { rawRequest } from './raw-http';

/** A writer of the orders table, by the route a real caller takes. */
export type OrderOperation =
  | { kind: 'cancel'; id: string }
  | { kind: 'ship'; id: string; via: 'admin' | 'repository' }
  | { kind: 'import'; orders: { id: string; status: OrderStatus }[] };

export interface OperationTargets {
  baseUrl: string;
  key: string;
  admin: Admin;
  orders: Pick<OrdersRepository, 'ship'>;
  /** Where import files are written. */
  dir: string;
}

let files = 0;

async function cancel(targets: OperationTargets, id: string): Promise<OrderEvent> {
  const response = await rawRequest(targets.baseUrl, 'DELETE', `/v1/store/orders/${id}`, {
    headers: { Authorization: `Bearer ${targets.key}` },
  });
  const observed = response.status;
  if (observed !== 204 && observed !== 404 && observed !== 409)
    throw new Error(`cancel ${id}: ${observed} ${response.body}`);
  return { kind: 'cancel', id, observed };
}

async function shipByAdmin(targets: OperationTargets, id: string): Promise<OrderEvent> {
  const run = await targets.admin('orders', 'ship', id);
  if (run.code === 0)
    return { kind: 'ship', id, observed: run.stdout.includes('already shipped') ? 'already' : 'shipped' };
  if (run.stderr.includes('No order with id')) return { kind: 'ship', id, observed: 'missing' };
  if (run.stderr.includes('is cancelled')) return { kind: 'ship', id, observed: 'cancelled' };
  throw new Error(`orders ship ${id}: exit ${run.code}: ${run.stderr}`);
}

async function shipByRepository(targets: OperationTargets, id: string): Promise<OrderEvent> {
  try {
    await targets.orders.ship(id);
    return { kind: 'ship', id, observed: 'shipped' };
  } catch (error) {
    if (error instanceof OrderNotFoundError) return { kind: 'ship', id, observed: 'missing' };
    if (error instanceof OrderNotPendingError && error.status === 'cancelled')
      return { kind: 'ship', id, observed: 'cancelled' };
    throw error;
  }
}

/** `orders import` of a file written as raw JSON text, so int64 ids keep every digit. */
async function importOrders(
  targets: OperationTargets,
  orders: { id: string; status: OrderStatus }[],
): Promise<OrderEvent[]> {
  const path = join(targets.dir, `import-${files++}.json`);
  await writeFile(path, `[${orders.map((o) => `{"id":${o.id},"status":"${o.status}"}`).join(',')}]`);
  const run = await targets.admin('orders', 'import', path);
  if (run.code !== 0) throw new Error(`orders import: exit ${run.code}: ${run.stderr}`);
  // The summary names the first few skipped ids: an import here holds at most two orders.
  const named = /never overwritten: ([0-9, -]+?)(?: and [0-9]+ more)?\)/.exec(run.stdout)?.[1];
  if (/ and [0-9]+ more\)/.test(run.stdout))
    throw new Error(`orders import: more skipped ids than named: ${run.stdout}`);
  const skipped = new Set(named === undefined ? [] : named.split(', '));
  return orders.map((o) => ({
    kind: 'import',
    id: o.id,
    status: o.status,
    observed: skipped.has(o.id) ? 'skipped' : 'created',
  }));
}

/** Runs one operation and reports the atomic events it was made of, with what each answered. */
export async function perform(targets: OperationTargets, op: OrderOperation): Promise<OrderEvent[]> {
  switch (op.kind) {
    case 'cancel':
      return [await cancel(targets, op.id)];
    case 'ship':
      return [await (op.via === 'admin' ? shipByAdmin(targets, op.id) : shipByRepository(targets, op.id))];
    case 'import':
      return importOrders(targets, op.orders);
  }
}
