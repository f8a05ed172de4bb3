// What the sync watch costs per change: its handler, as the composition root makes it, on batches of
// the declared size of the records the embedded server's change stream wrote for real writes.
// Batches whose changes all landed in time (the steady state: judged, nothing written) and batches
// whose changes all landed late (each re-stamped: one conditional write). CPU and wall time a batch,
// in this process; bench/sync-cost.ts prices them per million changes.
import type { DynamoDBRecord } from 'aws-lambda';
import { FUNCTIONS, STREAM_MAPPINGS } from '../../lib/contract/deployment';
import { tableNamesWithPrefix } from '../../lib/contract/tables';
import { watchBatch } from '../../lib/edge/sync-watch-handler';
import { storesFor } from '../../lib/root/stores';
import { closeClients, documentClient, watchBoundsOf, type Wiring } from '../../lib/root/wiring';
import { createDynamoClient } from '../../lib/stores/dynamo';
import { OrdersRepository } from '../../lib/stores/orders';
import { createTables } from '../../tools/local/create-tables';
import { startEmbeddedDynamo } from '../../tools/local/embedded-dynamo';
import { variedOrders } from '../support/fixtures';
import type { Suite } from '../suite';

export interface WatchedBatches {
  batches: number;
  changes: number;
  restamped: number;
  /** Per batch, the mean: the handler's process CPU (the embedded server's included when it writes) and wall time. */
  cpuMsPerBatch: number;
  wallMsPerBatch: number;
}

export interface SyncWatchFigures {
  batchSize: number;
  memoryMb: number;
  onTime: WatchedBatches;
  late: WatchedBatches;
}

const WATCH = STREAM_MAPPINGS['sync-watch'];
/** A writer this far behind AWS: every change it makes lands late. */
const LATE_BY_MS = 10 * 60_000;

export const syncWatch: Suite<SyncWatchFigures> = {
  name: 'sync watch',
  async run({ quick, log }) {
    const changes = quick ? 2_000 : 20_000;
    const dynamo = await startEmbeddedDynamo({ port: 0, stream: {} });
    const client = createDynamoClient({ endpoint: dynamo.endpoint });
    const names = tableNamesWithPrefix('bench-watch');
    const wiring: Wiring = { endpoint: dynamo.endpoint, tables: names };
    try {
      await createTables(client, names);
      const records: DynamoDBRecord[] = [];
      dynamo.stream?.subscribe(names.orders, (r) => records.push(r.record));
      const deps = { restamps: storesFor(wiring).restamps, bounds: () => watchBoundsOf(wiring) };
      const measure = async (): Promise<WatchedBatches> => {
        const taken = records.splice(0);
        const figures = { batches: 0, changes: taken.length, restamped: 0, cpuMs: 0, wallMs: 0 };
        for (let at = 0; at < taken.length; at += WATCH.batchSize) {
          const [cpu, started] = [process.cpuUsage(), performance.now()];
          const { batch, failedAt } = await watchBatch({ Records: taken.slice(at, at + WATCH.batchSize) }, deps);
          const spent = process.cpuUsage(cpu);
          figures.wallMs += performance.now() - started;
          figures.cpuMs += (spent.user + spent.system) / 1000;
          if (failedAt !== undefined) throw new Error(`the watch could not finish record ${failedAt}`);
          figures.batches++;
          figures.restamped += batch.restamped;
        }
        const { batches, cpuMs, wallMs } = figures;
        return { ...figures, cpuMsPerBatch: cpuMs / batches, wallMsPerBatch: wallMs / batches };
      };
      // Stamped now, as a deployed writer stamps: on time.
      await storesFor(wiring).orders.putMany(variedOrders(changes, 0));
      const onTime = await measure();
      log(`  on time: ${JSON.stringify(onTime)}`);
      const behind = new OrdersRepository(documentClient(wiring), names.orders, {
        clock: () => Date.now() - LATE_BY_MS,
      });
      await behind.putMany(variedOrders(changes, changes));
      const late = await measure();
      log(`  late: ${JSON.stringify(late)}`);
      if (onTime.restamped !== 0 || late.restamped !== late.changes)
        throw new Error(`re-stamped ${onTime.restamped} on time and ${late.restamped} of ${late.changes} late`);
      return { batchSize: WATCH.batchSize, memoryMb: FUNCTIONS['sync-watch'].memoryMb, onTime, late };
    } finally {
      client.destroy();
      closeClients(wiring);
      await dynamo.close();
    }
  },
};
