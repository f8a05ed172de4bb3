import { OrderNotFoundError, OrderNotPendingError } from '../../../lib/core/order-errors';
import { canonicalInt64, type Order } from '../../../lib/contract/order';
import { defineCommand, type CommandContext } from '../command';
import { mapBounded, PartialFailure } from '../concurrency';
import { AdminFailure, errorMessage, Interrupted, shownArgument, UsageError } from '../../shared/errors';
import { checkImportFile, elementOrder } from '../import-file';
import { fileElements, ImportSyntaxError } from '../import-stream';
import { ImportTally } from '../import-tally';
import { int64Problem } from '../int64-text';
import type { Output } from '../../shared/output';

/** Conditional puts in flight at once: quick on a big file, gentle on an on-demand table. */
export const IMPORT_CONCURRENCY = 16;
/** Orders read ahead of the writes: memory holds this batch, not the file. */
export const IMPORT_BATCH = 512;

function cannotRead(file: string, error: unknown): AdminFailure {
  const code = (error as { code?: unknown }).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : errorMessage(error);
  return new AdminFailure(`Cannot read ${file}: ${why}`);
}

/** The file's elements as orders, in batches; the file was checked, so a problem now means it changed. */
async function* orderBatches(file: string, signal: AbortSignal | undefined): AsyncGenerator<Order[]> {
  let batch: Order[] = [];
  for await (const element of fileElements(file, signal)) {
    const { order, problems } = elementOrder(element);
    if (!order) throw new AdminFailure(`${file} changed during the import (${problems[0] ?? 'orders[?]'})`);
    batch.push(order);
    if (batch.length === IMPORT_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function importOrders(file: string, { target, out, signal }: CommandContext): Promise<void> {
  const check = await checkImportFile(file, signal).catch((error: unknown) => {
    if (error instanceof ImportSyntaxError) throw new AdminFailure(`${file}: ${error.message}; no order was written.`);
    throw cannotRead(file, error);
  });
  if (check.interrupted) throw new Interrupted(`Import interrupted while checking ${file}; no order was written.`);
  const { problems } = check;
  if (problems.count > 0) {
    for (const problem of problems.shown) out.err(`${file}: ${problem}`);
    const hidden = problems.count - problems.shown.length;
    if (hidden > 0) out.err(`${file}: ... and ${hidden} more problem${hidden === 1 ? '' : 's'}`);
    const count = problems.count;
    throw new AdminFailure(`${file} has ${count} problem${count === 1 ? '' : 's'}; no order was written.`);
  }
  const total = check.count;
  const started = performance.now();
  const progress = importProgress(total, out);
  const tally = new ImportTally();
  // Listening is what tells the command line this command stops cleanly on Ctrl-C.
  signal?.addEventListener('abort', () => out.progressDone?.(), { once: true });
  let batchStart = 0;
  try {
    for await (const batch of orderBatches(file, signal)) {
      const start = batchStart;
      batchStart += batch.length;
      await mapBounded(
        batch,
        IMPORT_CONCURRENCY,
        async (order, index) => {
          const isNew = await target.orders.create(order);
          tally.add(order.id, start + index, isNew);
          progress.oneDone();
          return isNew;
        },
        signal,
      );
      if (signal?.aborted) break;
    }
  } catch (error) {
    if (error instanceof AdminFailure) throw error;
    if (!(error instanceof PartialFailure)) throw cannotRead(file, error);
    throw new AdminFailure(
      `Import stopped: ${error.message}. ${tally.written} of ${total} orders were handled before it ` +
        'stopped; running the import again is safe, since existing orders are skipped.',
      { cause: error.cause },
    );
  } finally {
    out.progressDone?.();
  }
  if (signal?.aborted) {
    throw new Interrupted(
      `Import interrupted: ${tally.written} of ${total} orders written (${tally.created} created, ${tally.skippedText()}). ` +
        `To resume, run the same import again: orders already there are skipped.`,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  out.out(`Imported ${file} into ${target.label}: ${tally.created} created, ${tally.skippedText()}.`);
  // On stderr: a timing is not part of the result, and differs from run to run.
  out.err(`${total} orders in ${seconds.toFixed(1)} s (${Math.round(total / Math.max(seconds, 0.001))} orders/s).`);
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
async function backfillUpdatedAt({ target, out, signal }: CommandContext): Promise<void> {
  let stamped = 0;
  let skipped = 0;
  for await (const page of target.orders.ordersWithoutUpdatedAt()) {
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
