// The local stack's change stream and event source mapping against the embedded server: records
// as DynamoDB Streams writes them, and batches as Lambda's event source mapping sends them (batch
// size and window, a failed batch sent again whole or bisected, partial failures, the on-failure
// destination), on a virtual clock. tools/local/change-stream.ts and stream-mapping.ts cite AWS.
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { STREAM_MAPPINGS, type StreamMapping } from '../../lib/contract/deployment';
import type { OrdersRepository } from '../../lib/stores/orders';
import { lambdaContext } from '../../tools/local/proxy-event';
import { EventSourceMapping, POLL_INTERVAL_MS } from '../../tools/local/stream-mapping';
import { startLaggingTables, type LaggingTables } from '../support/lagging-dynamo';
import { testClock } from '../support/local-stack';

const clock = testClock();
let tables: LaggingTables;
let orders: OrdersRepository;

beforeEach(async () => {
  // One shard: the batches below are the ones a test names, in one order.
  tables = await startLaggingTables({ stream: { now: clock.now, shards: 1 } });
  orders = tables.stores({ now: clock.now }).orders;
});
afterEach(() => tables.close());

const SETTINGS: StreamMapping = STREAM_MAPPINGS['sync-watch'];
const WINDOW_MS = SETTINGS.batchingWindowSeconds * 1000;

/** A mapping on the orders table's stream whose handler records each event and answers as `answer` says. */
function mapping(
  answer: (event: DynamoDBStreamEvent, call: number) => DynamoDBBatchResponse | Error = () => ({
    batchItemFailures: [],
  }),
  settings: Partial<StreamMapping> = {},
) {
  const events: string[][] = [];
  const stream = tables.dynamo.stream;
  if (!stream) throw new Error('the server streams no changes');
  const esm = new EventSourceMapping(stream, tables.names.orders, {
    settings: { ...SETTINGS, ...settings },
    handler: async (event) => {
      events.push(event.Records.map(idOf));
      const answered = answer(event, events.length);
      if (answered instanceof Error) throw answered;
      return answered;
    },
    context: () => lambdaContext('sync-watch', { now: clock.now }),
    now: clock.now,
  });
  return { esm, events };
}

const idOf = (record: DynamoDBRecord) => record.dynamodb?.Keys?.id?.N ?? '';
const seq = (record: DynamoDBRecord | undefined) => record?.dynamodb?.SequenceNumber ?? '';

/** Moves the clock to each batch's time and sends it, until none waits. */
async function drain(esm: EventSourceMapping): Promise<void> {
  for (let due = esm.nextDueAt(); due !== undefined; due = esm.nextDueAt()) {
    clock.set(Math.max(clock.now(), due));
    await esm.deliverDue();
  }
}

test('each applied write is one record with both images, the second it was created in, and a sequence number', async () => {
  const seen: DynamoDBRecord[] = [];
  const { esm } = mapping((event) => {
    seen.push(...event.Records);
    return { batchItemFailures: [] };
  });
  clock.set(Date.UTC(2026, 10, 22, 12, 0, 0, 750));
  await orders.create({ id: '1', status: 'pending' });
  await orders.cancel('1');
  // Writes that change nothing write no record: a cancel of a cancelled order, an identical put.
  await orders.cancel('1');
  const stored = await orders.getSynced('1');
  if (!stored) throw new Error('order 1 is gone');
  await orders.putMany([stored]);
  await drain(esm);
  expect(seen.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY']);
  const [insert, modify] = seen;
  expect(insert?.dynamodb?.OldImage).toBeUndefined();
  expect(insert?.dynamodb?.NewImage?.status).toEqual({ S: 'pending' });
  expect(modify?.dynamodb?.OldImage?.status).toEqual({ S: 'pending' });
  expect(modify?.dynamodb?.NewImage?.status).toEqual({ S: 'cancelled' });
  expect(modify?.dynamodb?.Keys).toEqual({ id: { N: '1' } });
  // Rounded down to the second, on the stack's clock.
  expect(insert?.dynamodb?.ApproximateCreationDateTime).toBe(Date.UTC(2026, 10, 22, 12, 0, 0) / 1000);
  expect(seq(insert).length).toBeGreaterThanOrEqual(21);
  expect(BigInt(seq(modify))).toBeGreaterThan(BigInt(seq(insert)));
  expect(insert?.eventSourceARN).toMatch(new RegExp(`:table/${tables.names.orders}/stream/`));
});

test('a batch waits for the batching window after a poll, or goes at once when it is full', async () => {
  const { esm, events } = mapping(undefined, { batchSize: 3 });
  await orders.putMany([1, 2].map((id) => ({ id: String(id), status: 'pending' as const })));
  await esm.deliverDue();
  clock.advance(POLL_INTERVAL_MS + WINDOW_MS - 1);
  await esm.deliverDue();
  expect(events).toEqual([]);
  clock.advance(1);
  await esm.deliverDue();
  expect(events).toEqual([['1', '2']]);
  await orders.putMany([3, 4, 5, 6].map((id) => ({ id: String(id), status: 'pending' as const })));
  clock.advance(POLL_INTERVAL_MS);
  await esm.deliverDue();
  // Three make a full batch, sent a poll after the third arrived; the fourth waits for its window.
  expect(events).toEqual([
    ['1', '2'],
    ['3', '4', '5'],
  ]);
  await drain(esm);
  expect(events.at(-1)).toEqual(['6']);
});

test('a failed batch comes again whole, its records in their order', async () => {
  const { esm, events } = mapping((_event, call) => (call === 1 ? new Error('boom') : { batchItemFailures: [] }), {
    bisectOnError: false,
  });
  await orders.create({ id: '1', status: 'pending' });
  await orders.create({ id: '2', status: 'pending' });
  await orders.cancel('1');
  await drain(esm);
  // At least once: the records the failed call had are sent again, in the same order.
  expect(events).toEqual([
    ['1', '2', '1'],
    ['1', '2', '1'],
  ]);
});

test('bisecting isolates a record that always fails; after its retries it goes to the on-failure destination', async () => {
  const poison = '3';
  const { esm, events } = mapping(
    (event) => (event.Records.some((r) => idOf(r) === poison) ? new Error('poison') : { batchItemFailures: [] }),
    { retryAttempts: 2 },
  );
  await orders.putMany([1, 2, 3, 4].map((id) => ({ id: String(id), status: 'pending' as const })));
  await drain(esm);
  expect(events).toEqual([
    ['1', '2', '3', '4'],
    ['1', '2'],
    ['3', '4'],
    ['3'],
    // Splitting used up no retry; the batch of one is retried twice.
    ['3'],
    ['3'],
    ['4'],
  ]);
  expect(esm.discarded).toEqual([
    expect.objectContaining({
      condition: 'RetryAttemptsExhausted',
      DDBStreamBatchInfo: expect.objectContaining({ batchSize: 1 }),
    }),
  ]);
  expect(esm.nextDueAt()).toBeUndefined();
});

test('a partial failure checkpoints before the record it names; a name from no record of the batch fails it whole', async () => {
  let second = '';
  const { esm, events } = mapping((event, call) => {
    if (call === 1) second = seq(event.Records[1]);
    if (call === 1) return { batchItemFailures: [{ itemIdentifier: second }] };
    if (call === 2) return { batchItemFailures: [{ itemIdentifier: 'no such record' }] };
    return { batchItemFailures: [] };
  });
  await orders.putMany([1, 2, 3].map((id) => ({ id: String(id), status: 'pending' as const })));
  await drain(esm);
  expect(events).toEqual([
    ['1', '2', '3'],
    ['2', '3'],
    // Bisected after the whole failure.
    ['2'],
    ['3'],
  ]);
});

test('a record older than the maximum record age goes to the on-failure destination unread', async () => {
  const { esm, events } = mapping(() => new Error('down'), { maxRecordAgeSeconds: 60, bisectOnError: false });
  await orders.create({ id: '1', status: 'pending' });
  clock.advance(POLL_INTERVAL_MS + WINDOW_MS);
  await esm.deliverDue();
  expect(events).toEqual([['1']]);
  clock.advance(60_000);
  await drain(esm);
  expect(esm.discarded.map((d) => d.condition)).toEqual(['RecordAgeExceeded']);
  expect(events).toEqual([['1']]);
});
