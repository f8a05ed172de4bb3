import { captureConsole, type ConsoleCapture } from '../support/console-logs';
import { Readable } from 'node:stream';
import { apiHandler, streamingApiHandler, type ApiHandlerDeps } from '../../lib/edge/api-handler';
import { logger } from '../../lib/commons/logger';
import type { Route } from '../../lib/contract/routes';
import { bearer, startLocalStack, type LocalStack } from '../support/local-stack';

// Each invocation logs with its own Lambda context and request keys, through the local gateway:
// while another invocation runs at the same time, and while its streamed body is being written.

function fixture(operationId: string, fn: Route['function'], streaming: boolean): Route {
  return {
    operationId,
    method: 'GET',
    path: `/store/${operationId}`,
    function: fn,
    tag: 'orders',
    summary: 'Logging fixture',
    streaming,
    stability: 'experimental',
  };
}

const slow = fixture('slowLogger', 'list-orders', false);
const quick = fixture('quickLogger', 'cancel-order', false);
const streamed = fixture('streamLogger', 'list-orders', true);

/** A gate the test opens: the slow invocation is still running while the quick one logs. */
let slowStarted: () => void = () => undefined;
let openGate: () => void = () => undefined;
const ok = { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' };

let stack: LocalStack;
let output: ConsoleCapture;
let deps: ApiHandlerDeps | undefined;
const withDeps =
  <A extends unknown[], R>(make: (deps: ApiHandlerDeps) => (...args: A) => R) =>
  (...args: A): R => {
    if (!deps) throw new Error('limiter not ready');
    return make(deps)(...args);
  };

beforeAll(async () => {
  stack = await startLocalStack({
    extraRoutes: [
      {
        route: slow,
        handler: withDeps((d) =>
          apiHandler(slow, d, async () => {
            const gate = new Promise<void>((resolve) => {
              openGate = resolve;
            });
            slowStarted();
            await gate;
            logger.info('slow invocation done');
            return ok;
          }),
        ),
      },
      {
        route: quick,
        handler: withDeps((d) =>
          apiHandler(quick, d, async () => {
            logger.info('quick invocation ran');
            openGate();
            return ok;
          }),
        ),
      },
      {
        route: streamed,
        handler: withDeps((d) =>
          streamingApiHandler(streamed, d, async () => ({
            statusCode: 200,
            headers: { 'Content-Type': 'application/json' },
            body: Readable.from(
              (async function* () {
                yield '[';
                logger.info('written while streaming');
                yield ']';
              })(),
              { objectMode: false },
            ),
          })),
        ),
      },
    ],
  });
  deps = { limiter: stack.app.limiter };
});
afterAll(() => stack.close());

beforeEach(() => {
  output = captureConsole();
});
afterEach(() => output.restore());

function entry(message: string): Record<string, unknown> {
  const found = output.entries().filter((e) => e.message === message);
  expect(found).toHaveLength(1);
  return found[0] as Record<string, unknown>;
}

const get = (route: Route, key: string) => fetch(`${stack.baseUrl}/v1${route.path}`, { headers: bearer(key) });

test('concurrent invocations each log their own function name and request keys', async () => {
  const { key, id } = await stack.newKey('pro');
  const started = new Promise<void>((resolve) => {
    slowStarted = resolve;
  });
  const slowResponse = get(slow, key);
  await started;
  const quickResponse = await get(quick, key);
  const slowDone = await slowResponse;
  expect([slowDone.status, quickResponse.status]).toEqual([200, 200]);

  expect(entry('slow invocation done')).toMatchObject({
    function_name: 'list-orders',
    apiRequestId: slowDone.headers.get('x-amzn-requestid'),
    keyId: id,
  });
  expect(entry('quick invocation ran')).toMatchObject({
    function_name: 'cancel-order',
    apiRequestId: quickResponse.headers.get('x-amzn-requestid'),
    keyId: id,
  });
});

test('lines written while a body streams carry the key id and the API request id', async () => {
  const { key, id } = await stack.newKey('pro');
  const response = await get(streamed, key);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe('[]');
  expect(entry('written while streaming')).toMatchObject({
    function_name: 'list-orders',
    apiRequestId: response.headers.get('x-amzn-requestid'),
    keyId: id,
  });
});
