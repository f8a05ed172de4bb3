// Logs are structured JSON lines with the request ids, and never contain an API key. The logger
// takes its level from the environment when it is made, so the modules that log are loaded after
// the level is set for this file.

import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { ApiKeysRepository } from '../../lib/keys/repository';
import { createApiKey } from '../../lib/keys/service';
import type { OrdersRepository } from '../../lib/orders/repository';
import { RateLimiter } from '../../lib/limits/limiter';
import { createTestTables, type TestTables } from '../support/dynamo';

process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
const { logger } = require('../../lib/aws/logger') as typeof import('../../lib/aws/logger');
const { makeAuthorizerHandler } = require('../../lib/keys/authorizer-handler') as typeof import('../../lib/keys/authorizer-handler');
const { makeCancelOrderHandler } = require('../../lib/orders/handlers') as typeof import('../../lib/orders/handlers');

let tables: TestTables;
let lines: string[];
let restore: () => void;

function context(awsRequestId: string): Context {
  return { awsRequestId, functionName: 'fn', functionVersion: '1', invokedFunctionArn: 'arn', memoryLimitInMB: '256' } as Context;
}

beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

beforeEach(() => {
  lines = [];
  // Powertools writes through its own Console on the real stdout/stderr; its methods are where
  // every line passes.
  const sink = (logger as unknown as { console: Record<'debug' | 'info' | 'warn' | 'error', (line: string) => void> }).console;
  const spies = (['debug', 'info', 'warn', 'error'] as const).map((level) =>
    jest.spyOn(sink, level).mockImplementation((line: string) => {
      lines.push(line);
    }),
  );
  restore = () => spies.forEach((spy) => spy.mockRestore());
});
afterEach(() => restore());

test('authorizer and handler logs are JSON with request ids, and never carry the key', async () => {
  const keys = new ApiKeysRepository(tables.doc, tables.names.apiKeys);
  const { key, record } = await createApiKey(keys, { plan: 'free' });
  const authorizer = makeAuthorizerHandler({ keys });
  await authorizer({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn: 'arn:aws:execute-api:r:a:api/v1/GET/x' }, context('auth-req-1'));
  await expect(
    authorizer({ type: 'TOKEN', authorizationToken: `Bearer ${key.slice(0, -1)}Z`, methodArn: 'arn:aws:execute-api:r:a:api/v1/GET/x' }, context('auth-req-2')),
  ).rejects.toThrow('Unauthorized');

  const failing = {
    cancel: async () => {
      throw new Error('boom');
    },
    scanPages: () => [],
  } as unknown as OrdersRepository;
  const handler = makeCancelOrderHandler({ orders: failing, limiter: new RateLimiter(tables.doc, tables.names.rateLimits) });
  const event = {
    httpMethod: 'DELETE',
    headers: { Authorization: `Bearer ${key}` },
    pathParameters: { orderId: '7' },
    requestContext: { requestId: 'api-req-9', authorizer: { keyId: record.id, plan: 'free', perMinute: 60, perDay: 1000 } },
  } as unknown as APIGatewayProxyEvent;
  const result = await handler(event, context('fn-req-3'));
  expect(result.statusCode).toBe(500);

  expect(lines.length).toBeGreaterThanOrEqual(3);
  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const line of lines) {
    expect(line).not.toContain(key);
    expect(line).not.toContain(key.slice(4, 24));
  }
  expect(entries.find((e) => e.message === 'key accepted')).toMatchObject({ function_request_id: 'auth-req-1', keyId: record.id });
  expect(entries.find((e) => e.message === 'key refused')).toMatchObject({ function_request_id: 'auth-req-2' });
  expect(entries.find((e) => e.message === 'request failed')).toMatchObject({
    function_request_id: 'fn-req-3',
    apiRequestId: 'api-req-9',
    keyId: record.id,
    level: 'ERROR',
  });
});
