import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
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
