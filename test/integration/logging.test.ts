// Logs are structured JSON lines with the request ids, and never contain an API key. The first
// import puts Powertools in dev mode at DEBUG, so every line goes through the global console.
import { captureConsole, type ConsoleCapture } from '../support/console-logs';
import type { FunctionId } from '../../lib/contract/deployment';
import { buildProxyEvent, lambdaContext } from '../../tools/local/proxy-event';
import { routeByOperation } from '../../lib/contract/routes';
import { callerContext } from '../../lib/core/access/caller';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { createApiKey } from '../../lib/stores/key-service';
import type { OrdersRepository } from '../../lib/stores/orders';
import { makeAuthorizerHandler } from '../../lib/edge/authorizer-handler';
import {
  AUTHORIZER_FAILED_MESSAGE,
  AUTHORIZER_VERSION_KEY,
  KEY_ACCEPTED_MESSAGE,
  KEY_REFUSED_MESSAGE,
  RELEASE_CHECK_FLAG,
  RELEASE_CHECK_MESSAGE,
} from '../../lib/edge/authorizer';
import { RELEASE_CHECKS } from '../../infra/release-hook/checks';
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { generateApiKey } from '../../lib/core/access/key-format';
import { makeCancelOrderHandler } from '../../lib/edge/orders-handlers';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let output: ConsoleCapture;

const context = (id: FunctionId, awsRequestId: string) => lambdaContext(id, { awsRequestId });

beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

beforeEach(() => {
  output = captureConsole();
});
afterEach(() => output.restore());

test('authorizer and handler logs are JSON with request ids, and never carry the key', async () => {
  const { keys, limiter } = tables.stores();
  const { key, record } = await createApiKey(keys, { plan: 'free' });
  const authorizer = makeAuthorizerHandler({ keys });
  await authorizer(
    { type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn: 'arn:aws:execute-api:r:a:api/v1/GET/x' },
    context('authorizer', 'auth-req-1'),
  );
  await expect(
    authorizer(
      {
        type: 'TOKEN',
        authorizationToken: `Bearer ${key.slice(0, -1)}${key.endsWith('Z') ? 'Y' : 'Z'}`,
        methodArn: 'arn:aws:execute-api:r:a:api/v1/GET/x',
      },
      context('authorizer', 'auth-req-2'),
    ),
  ).rejects.toThrow('Unauthorized');

  const failing = {
    cancel: async () => {
      throw new Error('boom');
    },
    listingPages: () => [],
  } as unknown as OrdersRepository;
  const handler = makeCancelOrderHandler({
    orders: failing,
    limiter,
  });
  const event = buildProxyEvent({
    route: routeByOperation('cancelOrder'),
    pathParameters: { orderId: '7' },
    headers: { Authorization: `Bearer ${key}` },
    requestId: 'api-req-9',
    authorizer: {
      principalId: record.id,
      context: callerContext({ keyId: record.id, plan: 'free', limits: PLAN_LIMITS.free }),
    },
  });
  const result = await handler(event, context('cancel-order', 'fn-req-3'));
  expect(result.statusCode).toBe(500);

  const entries = output.entries();
  expect(entries.length).toBeGreaterThanOrEqual(3);
  for (const line of output.lines) {
    expect(line).not.toContain(key);
    expect(line).not.toContain(key.slice(4, 24));
  }
  expect(entries.find((e) => e.message === KEY_ACCEPTED_MESSAGE)).toMatchObject({
    function_request_id: 'auth-req-1',
    keyId: record.id,
  });
  expect(entries.find((e) => e.message === KEY_REFUSED_MESSAGE)).toMatchObject({ function_request_id: 'auth-req-2' });
  expect(entries.find((e) => e.message === 'request failed')).toMatchObject({
    function_request_id: 'fn-req-3',
    apiRequestId: 'api-req-9',
    keyId: record.id,
    level: 'ERROR',
  });
});

test("the authorizer's failure line names the version that ran, which the rollback alarm counts by", async () => {
  const unreadable = tables.stores({ tables: { ...tables.names, apiKeys: 'no-such-table' } }).keys;
  const authorizer = makeAuthorizerHandler({ keys: unreadable });
  const ctx = { ...context('authorizer', 'auth-req-fail'), functionVersion: '42' };
  await expect(
    authorizer(
      {
        type: 'TOKEN',
        authorizationToken: `Bearer ${generateApiKey()}`,
        methodArn: 'arn:aws:execute-api:r:a:api/v1/GET/x',
      },
      ctx,
    ),
  ).rejects.not.toThrow('Unauthorized');
  const failure = output.entries().find((e) => e.message === AUTHORIZER_FAILED_MESSAGE);
  expect(failure).toMatchObject({ level: 'ERROR', [AUTHORIZER_VERSION_KEY]: '42' });
  expect(failure?.error).toBeDefined();
});

test("each of the authorizer's decisions is one line naming the version that made it, which the refusal-rate rollback alarm counts by", async () => {
  const { keys } = tables.stores();
  const { key } = await createApiKey(keys, { plan: 'free' });
  const authorizer = makeAuthorizerHandler({ keys });
  const methodArn = 'arn:aws:execute-api:r:a:api/v1/GET/x';
  const ctx = { ...context('authorizer', 'auth-req-v'), functionVersion: '43' };
  await authorizer({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn }, ctx);
  await expect(
    authorizer({ type: 'TOKEN', authorizationToken: `Bearer ${generateApiKey()}`, methodArn }, ctx),
  ).rejects.toThrow('Unauthorized');
  const decisions = output
    .entries()
    .filter((e) => e.message === KEY_ACCEPTED_MESSAGE || e.message === KEY_REFUSED_MESSAGE);
  expect(decisions.map((e) => [e.message, e[AUTHORIZER_VERSION_KEY]])).toEqual([
    [KEY_ACCEPTED_MESSAGE, '43'],
    [KEY_REFUSED_MESSAGE, '43'],
  ]);
});

test("the release hook's checks are judged as any key is, but logged apart from callers' decisions", async () => {
  const { keys } = tables.stores();
  const { key } = await createApiKey(keys, { plan: 'free', scope: 'read', releaseCanary: true });
  const authorizer = makeAuthorizerHandler({ keys });
  const ctx = { ...context('authorizer', 'auth-req-hook'), functionVersion: '44' };
  // The events the authorizer's hook sends: a random well-formed key, then the stage's canary key.
  const events = await Promise.all(
    RELEASE_CHECKS.authorizer.map(async (check) => (await check.prepare({ canaryKey: async () => key })).event),
  );
  const judge = async (event: unknown) =>
    authorizer(event as APIGatewayTokenAuthorizerEvent, ctx).then(
      () => 'allowed',
      () => 'refused',
    );
  const decisions = () =>
    output.entries().filter((e) => e.message === KEY_ACCEPTED_MESSAGE || e.message === KEY_REFUSED_MESSAGE);

  expect(await Promise.all(events.map(judge))).toEqual(['refused', 'allowed']);
  expect(decisions()).toEqual([]);
  expect(
    output
      .entries()
      .filter((e) => e.message === RELEASE_CHECK_MESSAGE)
      .map((e) => [e.accepted, e[AUTHORIZER_VERSION_KEY]]),
  ).toEqual([
    [false, '44'],
    [true, '44'],
  ]);

  // The same keys as API Gateway sends them (no flag: it cannot set one) are callers' decisions.
  const plain = events.map((event) => ({ ...(event as object), [RELEASE_CHECK_FLAG]: undefined }));
  expect(await Promise.all(plain.map(judge))).toEqual(['refused', 'allowed']);
  expect(decisions()).toHaveLength(2);
});
