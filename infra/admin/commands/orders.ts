import { readFile } from 'node:fs/promises';
import { OrderNotFoundError, OrderNotPendingError } from '../../../lib/orders/errors';
import { mapBounded, PartialFailure } from '../concurrency';
import { AdminFailure, errorMessage } from '../errors';
import { parseImportFile } from '../import-file';
import type { Output } from '../output';
import type { AdminTarget } from '../target';

/** Conditional puts in flight at once: quick on a big file, gentle on an on-demand table. */
export const IMPORT_CONCURRENCY = 16;

async function readImportFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new AdminFailure(`Cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : errorMessage(error)}`);
  }
}

export async function importOrders(target: AdminTarget, file: string, out: Output): Promise<void> {
  const parsed = parseImportFile(await readImportFile(file));
  if (!parsed.ok) {
    for (const problem of parsed.problems) out.err(`${file}: ${problem}`);
    const count = parsed.problems.length;
    throw new AdminFailure(`${file} has ${count} problem${count === 1 ? '' : 's'}; no order was written.`);
  }
  const { orders } = parsed;
  let created: boolean[];
  try {
    created = await mapBounded(orders, IMPORT_CONCURRENCY, (order) => target.orders.create(order));
  } catch (error) {
    if (!(error instanceof PartialFailure)) throw error;
    throw new AdminFailure(
      `Import stopped: ${error.message}. ${error.succeeded} of ${orders.length} orders were handled before it ` +
        'stopped; running the import again is safe, since existing orders are skipped.',
      { cause: error.cause },
    );
  }
  const skipped = orders.filter((_, i) => !created[i]).map((order) => order.id);
  out.out(
    `Imported ${file} into ${target.label}: ${orders.length - skipped.length} created, ` +
      `${skipped.length} skipped (already there; existing orders are never overwritten).`,
  );
  if (skipped.length > 0) {
    out.out('Skipped ids:');
    for (const id of skipped) out.out(`  ${id}`);
  }
}

export async function shipOrder(target: AdminTarget, id: string, out: Output): Promise<void> {
  // Read first only to tell "shipped now" from "already shipped"; the transition itself is conditional.
  const before = await target.orders.get(id);
  if (before?.status === 'shipped') {
    out.out(`Order ${id} was already shipped; nothing changed.`);
    return;
  }
  try {
    await target.orders.ship(id);
  } catch (error) {
    if (error instanceof OrderNotFoundError) throw new AdminFailure(`No order with id ${id} in ${target.label}`);
    if (error instanceof OrderNotPendingError) {
      throw new AdminFailure(`Order ${id} is ${error.status}; only a pending order can be shipped.`);
    }
    throw error;
  }
  out.out(`Order ${id} is shipped.`);
}
