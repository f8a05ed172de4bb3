// What event delivery costs per event: the fan-out's handler on batches of the declared size of the
// records the embedded server's change stream wrote for real writes, queuing through the SDK to the
// local stack's queue over SQS's protocol; and the worker's, on batches of the declared size received
// from that queue, each delivery read, claimed, signed, POSTed to a receiver on loopback that answers
// 200 at once, acknowledged and logged on the embedded server. CPU (this process: handler, SDK, the
// embedded server and the receiver) and wall time a batch, and events a second one consumer handles;
// infra/webhook-cost.ts prices them per million events.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBRecord } from 'aws-lambda';
import { FUNCTIONS, QUEUE_MAPPINGS, STREAM_MAPPINGS } from '../../lib/contract/deployment';
import { tableNamesWithPrefix } from '../../lib/contract/tables';
import { LOCAL_STACK_RULES } from '../../lib/core/webhooks/url-rules';
import { generateEndpointId } from '../../lib/core/webhooks/endpoint-ids';
import { generateSigningSecret } from '../../lib/core/webhooks/signature';
import { fanOutBatch } from '../../lib/edge/webhook-fanout-handler';
import { deliverBatch } from '../../lib/edge/webhook-delivery-handler';
import { deliveryQueueOf, enabledEndpointsOf, storesFor } from '../../lib/root/stores';
import { closeClients, type Wiring } from '../../lib/root/wiring';
import { createDynamoClient } from '../../lib/stores/dynamo';
import { createTables } from '../../tools/local/create-tables';
import { LocalQueue } from '../../tools/local/delivery-queue';
import { startEmbeddedDynamo } from '../../tools/local/embedded-dynamo';
import { lazySqsEndpoint } from '../../tools/local/sqs-endpoint';
import { variedOrders } from '../support/fixtures';
import type { Suite } from '../suite';
import type { ConsumerMeasured, MeasuredRun, WEBHOOK_SUITE } from '../../infra/measured';

/** One consumer's figures as the suite measures them; infra/measured.ts adds its batch size and memory. */
type ConsumerFigures = Omit<ConsumerMeasured, 'batchSize' | 'memoryMb'>;
export type WebhookDeliveryFigures = NonNullable<MeasuredRun['suites'][typeof WEBHOOK_SUITE]>;

type Measured = Omit<ConsumerFigures, 'cpuMsPerBatch' | 'wallMsPerBatch' | 'eventsPerSecond'> & {
  cpuMs: number;
  wallMs: number;
};

/** One batch measured: its process CPU and wall time added to the running figures. */
async function timed<T>(figures: Measured, run: () => Promise<T>): Promise<T> {
  const [cpu, started] = [process.cpuUsage(), performance.now()];
  const result = await run();
  const spent = process.cpuUsage(cpu);
  figures.wallMs += performance.now() - started;
  figures.cpuMs += (spent.user + spent.system) / 1000;
  figures.batches++;
  return result;
}

const summary = ({ cpuMs, wallMs, ...f }: Measured): ConsumerFigures => ({
  ...f,
  cpuMsPerBatch: cpuMs / f.batches,
  wallMsPerBatch: wallMs / f.batches,
  eventsPerSecond: f.events / (wallMs / 1000),
});

/** Endpoints each change goes to. */
const ENDPOINTS = 2;

export const webhookDelivery: Suite<WebhookDeliveryFigures> = {
  name: 'webhook delivery',
  async run({ quick, log }) {
    const changes = quick ? 500 : 5_000;
    const dynamo = await startEmbeddedDynamo({ port: 0, stream: {} });
    const client = createDynamoClient({ endpoint: dynamo.endpoint });
    const names = tableNamesWithPrefix('bench-webhooks');
    const settings = QUEUE_MAPPINGS['webhook-delivery'];
    const queue = new LocalQueue({ settings });
    const sqs = lazySqsEndpoint(queue);
    const receiver = createServer((request, response) => {
      request.resume().on('end', () => response.writeHead(200).end());
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const url = await sqs.queueUrl();
    const wiring: Wiring = {
      endpoint: dynamo.endpoint,
      tables: names,
      webhookQueue: { endpoint: new URL(url).origin, url },
      webhookDestinations: { rules: LOCAL_STACK_RULES },
    };
    try {
      await createTables(client, names);
      const stores = storesFor(wiring);
      const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      for (let i = 0; i < ENDPOINTS; i++)
        await stores.webhookEndpoints.create(
          `key_bench_${i}`,
          { id: generateEndpointId(), url: hooks, eventTypes: ['order.created'], secret: generateSigningSecret() },
          new Date(),
        );
      const records: DynamoDBRecord[] = [];
      dynamo.stream?.subscribe(names.orders, (r) => records.push(r.record));
      await stores.orders.putMany(variedOrders(changes, 0));

      const fanoutBatch = STREAM_MAPPINGS['webhook-fanout'].batchSize;
      const fanoutDeps = { endpoints: enabledEndpointsOf(wiring), queue: deliveryQueueOf(wiring) };
      const fanout: Measured = { batches: 0, items: 0, events: 0, cpuMs: 0, wallMs: 0 };
      for (let at = 0; at < records.length; at += fanoutBatch) {
        const Records = records.slice(at, at + fanoutBatch);
        const { batch, failedAt } = await timed(fanout, () => fanOutBatch({ Records }, fanoutDeps));
        if (failedAt !== undefined) throw new Error(`the fan-out could not queue record ${failedAt}`);
        fanout.items += Records.length;
        fanout.events += batch.queued;
      }
      log(`  fan-out: ${JSON.stringify(summary(fanout))}`);

      const workerDeps = {
        endpoints: stores.webhookEndpoints,
        deliveries: stores.webhookDeliveries,
        queue: deliveryQueueOf(wiring),
        destinations: { rules: LOCAL_STACK_RULES },
        now: Date.now,
      };
      const worker: Measured = { batches: 0, items: 0, events: 0, cpuMs: 0, wallMs: 0 };
      for (let taken = queue.receive(settings.batchSize); taken.length > 0; taken = queue.receive(settings.batchSize)) {
        const Records = taken.map((m) => ({ messageId: m.messageId, body: m.body }) as never);
        const { batch, unfinished } = await timed(worker, () => deliverBatch({ Records }, workerDeps));
        if (unfinished.length > 0) throw new Error(`the worker left ${unfinished.length} deliveries unfinished`);
        for (const m of taken) queue.delete(m.receipt);
        worker.items += taken.length;
        worker.events += batch.delivered;
      }
      log(`  worker: ${JSON.stringify(summary(worker))}`);
      if (worker.events !== changes * ENDPOINTS)
        throw new Error(`${worker.events} deliveries acknowledged of ${changes * ENDPOINTS}`);
      return {
        endpoints: ENDPOINTS,
        fanout: { ...summary(fanout), batchSize: fanoutBatch, memoryMb: FUNCTIONS['webhook-fanout'].memoryMb },
        worker: { ...summary(worker), batchSize: settings.batchSize, memoryMb: FUNCTIONS['webhook-delivery'].memoryMb },
      };
    } finally {
      client.destroy();
      closeClients(wiring);
      sqs.close();
      receiver.close();
      await dynamo.close();
    }
  },
};
