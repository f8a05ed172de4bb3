import { OrderNotFoundError, OrderNotPendingError } from '../../../lib/core/orders/order-errors';
import { canonicalInt64, type Order } from '../../../lib/contract/order';
import { defineCommand, type CommandContext } from '../command';
import { AdminFailure, Interrupted, shownArgument, UsageError } from '../../shared/errors';
import { ORDER_IMPORT } from '../import-file';
import { mapBounded } from '../map-bounded';
import { IMPORT_CONCURRENCY, importFile } from '../import-run';
import { int64Problem } from '../int64-text';
import { TOOL_CLOCK } from '../../shared/aws-time';

export { IMPORT_CONCURRENCY } from '../import-run';

/** Stamps come from AWS's time, checked before each batch is written (shared/aws-time.ts). */
const stampsChecked = ({ target }: CommandContext) => target.clock.check(TOOL_CLOCK.stampMs);

function importOrders(file: string, context: CommandContext): Promise<void> {
  const create = (order: Order) => context.target.orders.create(order);
  return importFile(ORDER_IMPORT, file, create, context, () => stampsChecked(context));
}

async function shipOrder(id: string, context: CommandContext): Promise<void> {
  const { target, out } = context;
  // Read first only to tell "shipped now" from "already shipped"; the transition itself is conditional.
  const before = await target.orders.get(id);
  if (before?.status === 'shipped') {
    out.out(`Order ${id} was already shipped; nothing changed.`);
    return;
  }
  await stampsChecked(context);
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
    'first; if any is invalid, the problems are listed (the first 100, then their number) and',
    'nothing is written. Orders whose id exists already are skipped, never overwritten, so',
    'running an interrupted import again (Ctrl-C says how far it got) resumes it. The file is',
    'read as a stream: memory stays flat whatever its size. Progress is shown on a terminal.',
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

/** Stamps updatedAt on every order written before v2; an interrupted or repeated run picks up what is left. */
async function backfillUpdatedAt(context: CommandContext): Promise<void> {
  const { target, out, signal } = context;
  let stamped = 0;
  let skipped = 0;
  for await (const page of target.orders.ordersWithoutUpdatedAt()) {
    await stampsChecked(context);
    const done = await mapBounded(
      page,
      IMPORT_CONCURRENCY,
      (order) => target.orders.stampUpdatedAt(order.id, order.status),
      signal,
    );
    // forEach skips the holes an interruption leaves where no task ran.
    done.forEach((applied) => (applied ? stamped++ : skipped++));
    out.progress?.(`Backfilling updatedAt: ${stamped} orders stamped`);
    if (signal?.aborted) break;
  }
  out.progressDone?.();
  const changed = skipped
    ? `; ${skipped} changed meanwhile (a write stamps them itself; run again to catch any other)`
    : '';
  if (signal?.aborted)
    throw new Interrupted(
      `Backfill interrupted after ${stamped} orders${changed}. Run it again to finish: stamped orders are skipped.`,
    );
  out.out(`Backfilled updatedAt in ${target.label}: ${stamped} orders stamped${changed}.`);
}

export const ordersBackfillUpdatedAt = defineCommand({
  name: 'orders backfill-updated-at',
  options: {},
  arguments: [],
  help: [
    'Stamps updatedAt (now) on every order written before v2, which puts it in the v2',
    "listing's filtered pages. Run it once after the v2 deploy has finished. Only orders without",
    'updatedAt are written, each only if it still has none and the status read: safe beside live',
    'cancels, safe to run again, and an interrupted run is resumed by running it again.',
  ],
  parse: () => undefined,
  run: (_args, context) => backfillUpdatedAt(context),
});
