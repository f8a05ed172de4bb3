// Event delivery priced per million events (infra/webhook-cost.ts): it reads the webhook suite's
// measured figures, refuses to price without them, and each line answers to what it prices.
import {
  DELIVERY_READ_UNITS,
  DELIVERY_WRITE_UNITS,
  deliveryBytes,
  measuredWebhooks,
  webhookCostPerMillion,
  webhookCostTable,
} from '../../infra/webhook-cost';
import { PRICES } from '../../infra/listing-cost';
import { WEBHOOK_SUITE, type ConsumerMeasured, type MeasuredRun } from '../../infra/measured';
import { QUEUE_MAPPINGS, STREAM_MAPPINGS } from '../../lib/contract/deployment';

const measured = measuredWebhooks();
const consumer = (c: ConsumerMeasured, more: Partial<ConsumerMeasured>): ConsumerMeasured => ({ ...c, ...more });

test('a results file without the suite is refused with the command that measures it', () => {
  const run: MeasuredRun = {
    mode: 'full',
    startedAt: '2026-11-29T00:00:00.000Z',
    machine: { cpus: 2, cpu: 'AMD EPYC' },
    loadAverage: {},
    suites: {},
  };
  expect(() => measuredWebhooks(run)).toThrow(`npm run bench -- --suite '${WEBHOOK_SUITE}' --merge`);
});

test('the measured figures are whole: every consumer handled batches of its declared size', () => {
  expect(measured.fanout.batchSize).toBe(STREAM_MAPPINGS['webhook-fanout'].batchSize);
  expect(measured.worker.batchSize).toBe(QUEUE_MAPPINGS['webhook-delivery'].batchSize);
  expect(measured.worker.events).toBe(measured.fanout.events);
  expect(measured.fanout.events).toBe(measured.fanout.items * measured.endpoints);
  for (const c of [measured.fanout, measured.worker]) expect(c.eventsPerSecond).toBeGreaterThan(0);
});

test('the total is its lines, DynamoDB the declared units at list prices', () => {
  const { total, perMillionRetries, perMillionWaits, ...lines } = webhookCostPerMillion(measured);
  expect(total).toBeCloseTo(
    Object.values(lines).reduce((a, b) => a + b, 0),
    10,
  );
  expect(lines.dynamo).toBeCloseTo(
    DELIVERY_READ_UNITS * PRICES.dynamoReadPerMillion + DELIVERY_WRITE_UNITS * PRICES.dynamoWritePerMillion,
    10,
  );
  expect(perMillionRetries).toBeGreaterThan(perMillionWaits);
});

test("the worker's line follows its measured time, and only it", () => {
  const base = webhookCostPerMillion(measured);
  const slower = webhookCostPerMillion({
    ...measured,
    worker: consumer(measured.worker, {
      wallMsPerBatch: measured.worker.wallMsPerBatch * 4,
      cpuMsPerBatch: measured.worker.cpuMsPerBatch * 4,
    }),
  });
  expect(slower.worker).toBeGreaterThan(base.worker);
  expect({ ...slower, worker: 0, total: 0, perMillionRetries: 0, perMillionWaits: 0 }).toEqual({
    ...base,
    worker: 0,
    total: 0,
    perMillionRetries: 0,
    perMillionWaits: 0,
  });
});

test("the fan-out's line is per event: more endpoints a change share a batch's cost", () => {
  const base = webhookCostPerMillion(measured);
  const wider = webhookCostPerMillion({
    ...measured,
    fanout: consumer(measured.fanout, { events: measured.fanout.events * 5 }),
  });
  expect(wider.fanout).toBeCloseTo(base.fanout / 5, 10);
});

test('a delivery on the wire is more than its handshakes, and the table shows the total', () => {
  expect(deliveryBytes()).toBeGreaterThan(1_000 + 300);
  expect(webhookCostTable()).toContain(`**$${webhookCostPerMillion().total.toFixed(2)}**`);
});
