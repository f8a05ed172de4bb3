import { readFile } from 'node:fs/promises';
import { OrderNotFoundError, OrderNotPendingError } from '../../../lib/orders/errors';
import { canonicalInt64 } from '../../../lib/orders/order';
import { defineCommand, type CommandContext } from '../command';
import { mapBounded, PartialFailure } from '../concurrency';
import { AdminFailure, errorMessage, shownArgument, UsageError } from '../../shared/errors';
import { parseImportFile } from '../import-file';
import { int64Problem } from '../int64-text';
import type { Output } from '../../shared/output';

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

async function importOrders(file: string, { target, out }: CommandContext): Promise<void> {
  const parsed = parseImportFile(await readImportFile(file));
  if (!parsed.ok) {
    for (const problem of parsed.problems) out.err(`${file}: ${problem}`);
    const count = parsed.problems.length;
    throw new AdminFailure(`${file} has ${count} problem${count === 1 ? '' : 's'}; no order was written.`);
  }
  const { orders } = parsed;
  const started = performance.now();
  const progress = importProgress(orders.length, out);
  let created: boolean[];
  try {
    created = await mapBounded(orders, IMPORT_CONCURRENCY, async (order) => {
      const isNew = await target.orders.create(order);
      progress.oneDone();
      return isNew;
    });
  } catch (error) {
    if (!(error instanceof PartialFailure)) throw error;
    throw new AdminFailure(
      `Import stopped: ${error.message}. ${error.succeeded} of ${orders.length} orders were handled before it ` +
        'stopped; running the import again is safe, since existing orders are skipped.',
      { cause: error.cause },
    );
  } finally {
    out.progressDone?.();
  }
  const seconds = (performance.now() - started) / 1000;
  const skipped = orders.filter((_, i) => !created[i]).map((order) => order.id);
  out.out(
    `Imported ${file} into ${target.label}: ${orders.length - skipped.length} created, ` +
      `${skipped.length} skipped (already there; existing orders are never overwritten).`,
  );
  if (skipped.length > 0) {
    out.out('Skipped ids:');
    for (const id of skipped) out.out(`  ${id}`);
  }
  // On stderr: a timing is not part of the result, and differs from run to run.
  out.err(
    `${orders.length} orders in ${seconds.toFixed(1)} s (${Math.round(orders.length / Math.max(seconds, 0.001))} orders/s).`,
  );
}

/** Counts finished writes and redraws the progress line at each whole percent. */
function importProgress(total: number, out: Output): { oneDone(): void } {
  let done = 0;
  let shownPercent = -1;
  return {
    oneDone() {
      done++;
      const percent = Math.floor((done * 100) / total);
      if (!out.progress || percent === shownPercent) return;
      shownPercent = percent;
      out.progress(`Importing: ${done} of ${total} orders (${percent}%)`);
    },
  };
}

async function shipOrder(id: string, { target, out }: CommandContext): Promise<void> {
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

function orderIdArgument(text: string): string {
  const id = canonicalInt64(text);
  if (id === undefined) throw new UsageError(`Order id ${shownArgument(int64Problem(text) ?? text)}`);
  return id;
}

export const ordersImport = defineCommand({
  name: 'orders import',
  options: {},
  arguments: ['<file.json>'],
  help: [
    'Creates the orders of a JSON array, e.g. [{"id": 1, "petId": 7, "quantity": 2,',
    '"shipDate": "2026-11-20T10:00:00Z", "complete": false, "status": "pending"}].',
    'id (int64) and status (pending|shipped|cancelled) are required. Every element is checked',
    'first; if any is invalid, every problem is listed and nothing is written. Orders whose id',
    'exists already are skipped, never overwritten, so running an interrupted import again is',
    'safe. Progress is shown on a terminal.',
  ],
  parse: ({ args: [file = ''] }) => file,
  run: importOrders,
});

export const ordersShip = defineCommand({
  name: 'orders ship',
  options: {},
  arguments: ['<order-id>'],
  help: [
    'Moves a pending order to shipped and sets complete (fulfilled). A cancelled order cannot',
    'ship. (A negative id goes after `--`: orders ship -- -5.)',
  ],
  parse: ({ args: [id = ''] }) => orderIdArgument(id),
  run: shipOrder,
});
