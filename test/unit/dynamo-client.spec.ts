import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoClient, createDocumentClient } from '../../lib/stores/dynamo';

// The SDK's logger middleware deep-copies every response for a logger this service never gives it;
// on a listing that was a fifth of the CPU. No client of ours may carry it.

const names = (stack: { identify(): string[] }) => stack.identify().map((entry) => entry.split(' ')[0]);

test.each([
  ['deployed', {}],
  ['local', { endpoint: 'http://127.0.0.1:1' }],
])('a %s client has no logger middleware, and keeps the rest of its stack', (_where, options) => {
  const client = createDynamoClient(options);
  const stack = names(client.middlewareStack);
  expect(stack).not.toContain('loggerMiddleware');
  expect(stack).toEqual(
    expect.arrayContaining([
      'serializerMiddleware',
      'retryMiddleware',
      'httpSigningMiddleware',
      'deserializerMiddleware',
    ]),
  );
  expect(names(createDocumentClient(client).middlewareStack)).not.toContain('loggerMiddleware');
});

test('an SDK client built without our helper does carry it (so the check above can fail)', () => {
  expect(names(new DynamoDBClient({ region: 'local' }).middlewareStack)).toContain('loggerMiddleware');
});

// A refused connection must leave no timer behind: one kept the admin command, and any jest worker
// whose last test met a stopped endpoint, alive for a second after the error. The clients' timers
// are jest's here, counted, while the connection itself is real.
describe('a refused connection', () => {
  /** Where nothing listens (port 2: privileged, unused, not one fetch refuses): ECONNREFUSED at once. */
  const REFUSED = 'http://127.0.0.1:2';
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => {
    jest.clearAllTimers();
    jest.useRealTimers();
  });

  async function timersLeftBy(client: DynamoDBClient): Promise<number> {
    await expect(client.send(new ListTablesCommand({}))).rejects.toThrow(/ECONNREFUSED/);
    client.destroy();
    // What the error leaves to clear is cleared within a few turns of the event loop (the socket's
    // 'close' comes after the error that rejected the call); a timer still counted then is left.
    for (let turn = 0; turn < 10 && jest.getTimerCount() > 0; turn++) await new Promise(setImmediate);
    return jest.getTimerCount();
  }

  test('leaves no timer running in a local client, whose agent times the connection', async () => {
    expect(await timersLeftBy(createDynamoClient({ endpoint: REFUSED, maxAttempts: 1 }))).toBe(0);
  });

  test("leaves one in the SDK's own connectionTimeout (so the check above can fail)", async () => {
    const sdk = new DynamoDBClient({
      endpoint: REFUSED,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
      requestHandler: { connectionTimeout: 1_000 },
    });
    expect(await timersLeftBy(sdk)).toBe(1);
  });
});
