// What the embedded server cannot show: real DynamoDB returns the old item with a failed condition
// (ReturnValuesOnConditionCheckFailure: ALL_OLD), and then the limiter must not read it again.
// Also the failure path, where one window's call errors after the other took its increment.

import { ConditionalCheckFailedException, DynamoDBClient, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { RateLimiter } from '../../lib/limits/limiter';

const doc = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
);
const dynamo = mockClient(doc);
const nowMs = Date.parse('2026-11-22T10:00:15.000Z');
const now = nowMs / 1000;
const limiter = new RateLimiter(doc, 'rate-limits', () => nowMs);
const limits = { perMinute: 60, perDay: 1000 };

const isDay = (input: UpdateCommandInput) => String(input.Key?.pk).includes('#d#');
const expression = (input: UpdateCommandInput) => input.UpdateExpression ?? '';

/** A counter server whose day counter refuses with `dayFailure`; every other update succeeds. */
function serve(dayFailure: Error): void {
  dynamo.reset();
  dynamo.on(GetCommand).rejects(new Error('the old item came with the failure: no read expected'));
  dynamo.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
    if (expression(input).startsWith('ADD #count :one') && isDay(input)) throw dayFailure;
    if (expression(input).startsWith('ADD #rejected')) return { Attributes: { rejected: 1 } };
    return { Attributes: { count: 1 } };
  });
}

function refusedWith(item: Record<string, AttributeValue>): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: item });
}

/** The updates that took an increment back, by window kind. */
function givenBack(): string[] {
  return dynamo
    .commandCalls(UpdateCommand)
    .map((call) => call.args[0].input)
    .filter((input) => expression(input).startsWith('ADD #count :minusOne'))
    .map((input) => (isDay(input) ? 'day' : 'minute'));
}

afterAll(() => dynamo.restore());

test('a ban in the returned old item is reported without a read, and the minute is given back', async () => {
  serve(refusedWith({ count: { N: '12' }, bannedUntil: { N: String(now + 300) } }));
  expect(await limiter.admit('k', limits)).toEqual({
    admitted: false,
    reason: 'KEY_TEMPORARILY_BANNED',
    retryAfterSeconds: 300,
    headers: { limit: 60, remaining: 0, resetAt: now + 300 },
  });
  expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
  expect(givenBack()).toEqual(['minute']);
});

test('a full day in the returned old item, with a ban long over, is QUOTA_EXCEEDED without a read', async () => {
  serve(refusedWith({ count: { N: '1000' }, bannedUntil: { N: String(now - 3600) } }));
  expect(await limiter.admit('k', limits)).toMatchObject({ admitted: false, reason: 'QUOTA_EXCEEDED' });
  expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
  expect(givenBack()).toEqual(['minute']);
});

test('when one window errors, the increment the other took is given back and the error goes on', async () => {
  const throttled = new Error('ProvisionedThroughputExceeded');
  serve(throttled);
  await expect(limiter.admit('k', limits)).rejects.toBe(throttled);
  expect(givenBack()).toEqual(['minute']);
});
