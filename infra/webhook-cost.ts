// Event delivery priced per million events (an event: one change delivered to one endpoint whose
// receiver acknowledges its first attempt), from the declarations (batch sizes, memory, the writes
// and reads each delivery makes), the webhook suite's measured CPU and wall time (bench/results.json,
// infra/measured.ts) and the list prices of infra/listing-cost.ts; and what a failed attempt and a
// wait cost on top. docs/deployment.md shows it (`npm run generate`).
import results from '../bench/results.json' with { type: 'json' };
import { FUNCTIONS, QUEUE_MAPPINGS, STREAM_MAPPINGS } from '../lib/contract/deployment';
import { STREAMING_LIMITS } from '../lib/contract/streaming-limits';
import { webhookEvent, webhookEventId, webhookEventJson } from '../lib/contract/webhooks';
import { signedHeaders } from '../lib/core/webhooks/signature';
import { WEBHOOK_USER_AGENT } from '../lib/stores/webhook-sender';
import { egressPrice, PRICES } from './listing-cost';
import { WEBHOOK_SUITE, type ConsumerMeasured, type MeasuredRun } from './measured';

/** What the model assumes where nothing here measures it. */
export const WEBHOOK_COST_ASSUMPTIONS = {
  /** How long a receiver takes to answer: the worker's batch waits for its slowest delivery. */
  receiverMs: 200,
  /** Bytes a delivery's TCP and TLS handshakes send (its ClientHello, key share, Finished, ACKs): one connection an attempt. */
  handshakeBytes: 1_000,
};

/**
 * The DynamoDB requests of one delivered event (lib/edge/webhook-delivery-handler.ts): the endpoint
 * read before the attempt (strongly consistent, an item under 4 KB: one read unit); the order's
 * claim, its acknowledgement (which gives the lease back) and the log's item (each under 1 KB: one
 * write unit each).
 */
export const DELIVERY_READ_UNITS = 1;
export const DELIVERY_WRITE_UNITS = 3;
/**
 * SQS requests per message through the queue: its share of a SendMessageBatch (10 a request), of
 * the mapping's ReceiveMessage and of its DeleteMessageBatch (a batch of up to 10 each).
 */
const SQS_REQUESTS_PER_MESSAGE = 3 / 10;

/** A typical event's bytes on the wire: its request line, headers and body, and the handshakes. */
export function deliveryBytes(): number {
  const order = { id: '1234567890123456789', petId: '1234567890123456789', quantity: 12, status: 'cancelled' as const };
  const stamped = { ...order, updatedAt: '2026-11-20T10:00:00.000Z' };
  const body = webhookEventJson(webhookEvent('order.cancelled', stamped));
  const signed = signedHeaders(
    ['whsec_' + 'A'.repeat(43) + '='],
    webhookEventId(order.id, stamped.updatedAt, 'order.cancelled'),
    1_790_000_000,
    body,
  );
  const headers = {
    host: 'hooks.example.com',
    'content-type': 'application/json',
    'content-length': String(body.length),
    'user-agent': WEBHOOK_USER_AGENT,
    connection: 'close',
    ...signed,
  };
  const head = `POST /hooks/orders HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return Buffer.byteLength(head) + Buffer.byteLength(body) + WEBHOOK_COST_ASSUMPTIONS.handshakeBytes;
}

export interface WebhookCost {
  fanout: number;
  queue: number;
  worker: number;
  dynamo: number;
  egress: number;
  total: number;
  /** On top, a failed attempt (retried later) and a wait (a hop of the queue, or a failing endpoint's turn). */
  perMillionRetries: number;
  perMillionWaits: number;
}

/** A batch's billed seconds: its wall time here, or its CPU at the function's share of a vCPU, whichever is longer. */
function batchSeconds(c: ConsumerMeasured): number {
  const cpuShare = Math.min(1, c.memoryMb / STREAMING_LIMITS.memoryMbPerVcpu);
  return Math.max(c.wallMsPerBatch, c.cpuMsPerBatch / cpuShare) / 1000;
}

const perMillion = (requests: number, pricePerMillion: number) => (requests * pricePerMillion) / 1e6;

/**
 * A million events, from the figures measured: the fan-out's invocations at full batches and their
 * duration (as measured per event queued), the queue's requests, the worker's invocations at full
 * batches and their duration (what was measured on loopback, plus the receiver's answer), each
 * delivery's DynamoDB units, and its bytes out.
 */
export function webhookCostPerMillion(measured = measuredWebhooks()): WebhookCost {
  const { fanout, worker } = measured;
  const gbSecond = (memoryMb: number) => (memoryMb / 1024) * PRICES.lambdaGbSecond;
  const fanoutBatches = 1e6 / (fanout.events / fanout.batches);
  const workerBatches = 1e6 / QUEUE_MAPPINGS['webhook-delivery'].batchSize;
  const workerSeconds = batchSeconds(worker) + WEBHOOK_COST_ASSUMPTIONS.receiverMs / 1000;
  const sqsPrice = PRICES.sqsRequestPerMillion + PRICES.sqsFairQueueSurchargePerMillion;
  const items = {
    fanout:
      perMillion(fanoutBatches, PRICES.lambdaRequestPerMillion) +
      fanoutBatches * batchSeconds(fanout) * gbSecond(FUNCTIONS['webhook-fanout'].memoryMb),
    queue: perMillion(1e6 * SQS_REQUESTS_PER_MESSAGE, sqsPrice),
    worker:
      perMillion(workerBatches, PRICES.lambdaRequestPerMillion) +
      workerBatches * workerSeconds * gbSecond(FUNCTIONS['webhook-delivery'].memoryMb),
    dynamo: DELIVERY_READ_UNITS * PRICES.dynamoReadPerMillion + DELIVERY_WRITE_UNITS * PRICES.dynamoWritePerMillion,
    egress: egressPrice((1e6 * deliveryBytes()) / 1024 ** 3 + 100) - egressPrice(100),
  };
  const total = Object.values(items).reduce((a, b) => a + b, 0);
  // A failed attempt: all of an event's but the acknowledgement, plus the failing state's write
  // and the retry's trip through the queue. A wait: a trip through the queue and the endpoint's read.
  const trip = perMillion(1e6 * SQS_REQUESTS_PER_MESSAGE, sqsPrice);
  const perMillionRetries = items.worker + items.dynamo + PRICES.dynamoWritePerMillion + items.egress + trip;
  const perMillionWaits =
    trip +
    perMillion(workerBatches, PRICES.lambdaRequestPerMillion) +
    workerBatches * batchSeconds(worker) * gbSecond(FUNCTIONS['webhook-delivery'].memoryMb) +
    DELIVERY_READ_UNITS * PRICES.dynamoReadPerMillion;
  return { ...items, total, perMillionRetries, perMillionWaits };
}

/** The webhook suite's figures in bench/results.json; refused when it holds none (run the suite). */
export function measuredWebhooks(run: MeasuredRun = results) {
  const figures = run.suites[WEBHOOK_SUITE];
  if (!figures)
    throw new Error(
      `bench/results.json has no "${WEBHOOK_SUITE}" figures: npm run bench -- --suite '${WEBHOOK_SUITE}' --merge`,
    );
  return figures;
}

const usd = (value: number) => `$${value.toFixed(value < 1 ? 3 : 2)}`;

/** docs/deployment.md's table: a million events priced, what each consumer handles, and what it assumes. */
export function webhookCostTable(): string {
  const measured = measuredWebhooks();
  const c = webhookCostPerMillion(measured);
  const n0 = (v: number) => Math.round(v).toLocaleString('en-US');
  const fanout = STREAM_MAPPINGS['webhook-fanout'];
  const queue = QUEUE_MAPPINGS['webhook-delivery'];
  return [
    `| US$ per million events (${PRICES.region} list prices of ${PRICES.asOf}) | |`,
    '| --- | --- |',
    `| Fan-out: Lambda requests (${fanout.batchSize} changes a batch) and its GB-s | ${usd(c.fanout)} |`,
    `| SQS: each message's share of a send, a receive and a delete (10 a request), fair-queue surcharge included | ${usd(c.queue)} |`,
    `| Worker: Lambda requests (${queue.batchSize} deliveries a batch) and its GB-s, the receiver answering in ${WEBHOOK_COST_ASSUMPTIONS.receiverMs} ms | ${usd(c.worker)} |`,
    `| DynamoDB: the endpoint read (${DELIVERY_READ_UNITS} read unit), the claim, acknowledgement and log (${DELIVERY_WRITE_UNITS} write units) | ${usd(c.dynamo)} |`,
    `| Egress: ${n0(deliveryBytes())} bytes a delivery (request, headers, body, a TCP and TLS handshake), beyond the free 100 GB | ${usd(c.egress)} |`,
    `| **Total, every first attempt acknowledged** | **${usd(c.total)}** |`,
    `| On top: per million failed attempts (retried) | ${usd(c.perMillionRetries)} |`,
    `| On top: per million waits (a message re-sent to wait its turn) | ${usd(c.perMillionWaits)} |`,
    '',
    `Measured (bench "${WEBHOOK_SUITE}", ${measured.endpoints} endpoints a change): the fan-out handles ${n0(measured.fanout.eventsPerSecond)} events a second`,
    `(${measured.fanout.cpuMsPerBatch.toFixed(1)} ms CPU, ${measured.fanout.wallMsPerBatch.toFixed(1)} ms wall a batch), the worker ${n0(measured.worker.eventsPerSecond)} a second, one batch after another`,
    `(${measured.worker.cpuMsPerBatch.toFixed(1)} ms CPU, ${measured.worker.wallMsPerBatch.toFixed(1)} ms wall a batch of ${queue.batchSize}, the embedded server and a loopback receiver in the same process).`,
  ].join('\n');
}
