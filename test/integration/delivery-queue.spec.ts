// The delivery queue's emulation (tools/local/delivery-queue.ts, sqs-endpoint.ts), held to what SQS and
// Lambda's SQS mapping document: message timers up to 15 minutes, a received message hidden for the
// visibility timeout and back unless deleted, moved to the dead-letter queue after maxReceiveCount
// receives, duplicates, SQS's batch limits; the mapping's partial failures and its concurrency bound;
// SendMessage and SendMessageBatch over SQS's own protocol, as the SDK speaks it; npm start's timer.
import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { QUEUE_MAPPINGS } from '../../lib/contract/deployment';
import { createSqsClient } from '../../lib/stores/webhook-queue';
import { LocalQueue, QueueEventSourceMapping, QueueRefusal, SQS_LIMITS } from '../../tools/local/delivery-queue';
import { lazySqsEndpoint } from '../../tools/local/sqs-endpoint';
import { lambdaContext } from '../../tools/local/proxy-event';

const SETTINGS = QUEUE_MAPPINGS['webhook-delivery'];
let now = 1_000_000;
const clock = () => now;

const queueOf = (options: { duplicateRate?: number } = {}) =>
  new LocalQueue({ settings: SETTINGS, now: clock, ...options });
const mappingOf = (queue: LocalQueue, handler: (event: SQSEvent) => Promise<SQSBatchResponse | undefined>) =>
  new QueueEventSourceMapping(queue, {
    settings: SETTINGS,
    handler,
    context: () => lambdaContext('webhook-delivery', { now: clock }),
    now: clock,
  });

test('a timer hides a new message until it is due, up to 15 minutes; a longer one, or a batch past 10, is refused whole', () => {
  const queue = queueOf();
  queue.send([{ body: 'a', delaySeconds: 900 }]);
  expect(queue.receive(10)).toEqual([]);
  now += 900_000;
  expect(queue.receive(10).map((m) => m.body)).toEqual(['a']);
  expect(() => queue.send([{ body: 'b', delaySeconds: 901 }])).toThrow(QueueRefusal);
  expect(() => queue.send(Array.from({ length: SQS_LIMITS.batchEntries + 1 }, () => ({ body: 'c' })))).toThrow(
    /At most 10 entries/,
  );
  expect(() => queue.send([{ body: 'x'.repeat(SQS_LIMITS.maxBytes + 1) }])).toThrow(/BatchRequestTooLong|bytes/);
  expect(queue.size).toBe(1);
});

test('a received message is hidden for the visibility timeout and comes back unless deleted; too many receives send it to the dead-letter queue', () => {
  const queue = queueOf();
  queue.send([{ body: 'a' }]);
  for (let receive = 1; receive <= SETTINGS.maxReceiveCount; receive++) {
    const [message] = queue.receive(10);
    expect(message?.receiveCount).toBe(receive);
    expect(queue.receive(10)).toEqual([]);
    now += SETTINGS.visibilityTimeoutSeconds * 1000;
  }
  expect(queue.receive(10)).toEqual([]);
  expect(queue.deadLetters.map((m) => [m.body, m.receiveCount])).toEqual([['a', SETTINGS.maxReceiveCount]]);
  // Deleted with its latest receipt, it is gone; with an earlier one, it stays (as SQS says).
  queue.send([{ body: 'b' }]);
  const [first] = queue.receive(1);
  now += SETTINGS.visibilityTimeoutSeconds * 1000;
  const [second] = queue.receive(1);
  queue.delete(first?.receipt);
  expect(queue.size).toBe(1);
  queue.delete(second?.receipt);
  expect(queue.size).toBe(0);
});

test('at least once: with duplicates on, a received message is received again at once', () => {
  const queue = queueOf({ duplicateRate: 1 });
  queue.send([{ body: 'a' }]);
  expect(queue.receive(1).map((m) => m.body)).toEqual(['a']);
  expect(queue.receive(1).map((m) => m.body)).toEqual(['a']);
});

test('the mapping deletes what the function handled, leaves the messages it names, and runs at most maxConcurrency batches at once', async () => {
  const queue = queueOf();
  let running = 0;
  let most = 0;
  const seen: string[] = [];
  const mapping = mappingOf(queue, async (event) => {
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setImmediate(resolve));
    running--;
    seen.push(...event.Records.map((r) => r.body));
    return {
      batchItemFailures: event.Records.filter((r) => r.body === 'keep').map((r) => ({ itemIdentifier: r.messageId })),
    };
  });
  for (let i = 0; i < 100; i++) queue.send([{ body: String(i) }, { body: i === 0 ? 'keep' : `x${i}` }]);
  await mapping.deliverDue();
  expect(seen).toHaveLength(200);
  expect(most).toBeLessThanOrEqual(SETTINGS.maxConcurrency);
  expect(most).toBeGreaterThan(1);
  // The named one stays, hidden until its visibility timeout.
  expect(queue.size).toBe(1);
  expect(mapping.nextDueAt()).toBe(now + SETTINGS.visibilityTimeoutSeconds * 1000);
});

test('SendMessageBatch and SendMessage over SQS protocol, through the SDK: ids and digests it checks, refusals with SQS codes', async () => {
  const queue = queueOf();
  const endpoint = lazySqsEndpoint(queue);
  const url = await endpoint.queueUrl();
  const client = createSqsClient({ endpoint: new URL(url).origin });
  try {
    const batch = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: 'a', MessageBody: 'one', MessageGroupId: 'whe_1', DelaySeconds: 5 },
          { Id: 'b', MessageBody: 'two' },
        ],
      }),
    );
    expect(batch.Successful?.map((s) => s.Id)).toEqual(['a', 'b']);
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'three' }));
    expect(
      queue
        .receive(10)
        .map((m) => [m.body, m.groupId])
        .sort(),
    ).toEqual([
      ['three', undefined],
      ['two', undefined],
    ]);
    await expect(
      client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'late', DelaySeconds: 901 })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(
      client.send(new SendMessageCommand({ QueueUrl: `${new URL(url).origin}/000000000000/other`, MessageBody: 'x' })),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  } finally {
    client.destroy();
    endpoint.close();
  }
});

test("npm start's mapping delivers on its own timer, sooner when a message comes due before it", async () => {
  jest.useFakeTimers({ now });
  try {
    const queue = new LocalQueue({ settings: SETTINGS });
    const got: string[] = [];
    const mapping = new QueueEventSourceMapping(queue, {
      settings: SETTINGS,
      handler: async (event) => {
        got.push(...event.Records.map((r) => r.body));
        return undefined;
      },
      context: () => lambdaContext('webhook-delivery'),
      autoDeliver: true,
    });
    queue.send([{ body: 'later', delaySeconds: 60 }]);
    queue.send([{ body: 'now' }]);
    await jest.advanceTimersByTimeAsync(10);
    expect(got).toEqual(['now']);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(got).toEqual(['now', 'later']);
    mapping.close();
  } finally {
    jest.useRealTimers();
  }
});
