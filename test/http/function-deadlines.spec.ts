// The local gateway stops a function at its deadline, as Lambda does: a buffered answer becomes
// API Gateway's 5XX, and a stream already under way is cut. Deadlines are shortened here (the
// deployed ones are checked against the stack in test/infra/local-context.spec.ts).

import type { Writable } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { FUNCTIONS } from '../../lib/contract/deployment';
import type { ResponsePrelude } from '../../tools/local/lambda-streaming';
import type { Route } from '../../lib/contract/routes';
import { rawRequest } from '../support/raw-http';
import { bearer, startLocalStack, type LocalStack } from '../support/local-stack';

const SHORT_SECONDS = 0.3;

/** The runtime global the local gateway installs, as a streamed handler calls it. */
const runtime = () =>
  (globalThis as unknown as { awslambda: { HttpResponseStream: { from<S>(stream: S, prelude: ResponsePrelude): S } } })
    .awslambda;

const slowCancel: Route = {
  operationId: 'slowCancel',
  method: 'DELETE',
  path: '/slow/{orderId}',
  function: 'cancel-order',
  tag: 'test',
  summary: 'Never answers (test fixture)',
  streaming: false,
  stability: 'experimental',
};
const stalledList: Route = {
  ...slowCancel,
  operationId: 'stalledList',
  method: 'GET',
  path: '/stalled',
  function: 'list-orders',
  streaming: true,
};

let stack: LocalStack;
let key: string;
let streamSeen: Writable | undefined;
const never = new Promise<never>(() => undefined);

beforeAll(async () => {
  stack = await startLocalStack({
    functions: {
      ...FUNCTIONS,
      'cancel-order': { ...FUNCTIONS['cancel-order'], timeoutSeconds: SHORT_SECONDS },
      'list-orders': { ...FUNCTIONS['list-orders'], timeoutSeconds: SHORT_SECONDS },
    },
    extraRoutes: [
      { route: slowCancel, handler: (): Promise<APIGatewayProxyResult> => never },
      {
        route: stalledList,
        handler: async (_event: unknown, stream: Writable): Promise<void> => {
          streamSeen = stream;
          const framed = runtime().HttpResponseStream.from(stream, {
            statusCode: 200,
            headers: { 'Content-Type': 'application/json' },
          });
          framed.write('[{"id":1}');
          return never;
        },
      },
    ],
  });
  ({ key } = await stack.newKey('enterprise', { perMinute: 10_000, perDay: 100_000 }));
});
afterAll(() => stack.close());

test('a buffered function still running at its deadline is the gateway 500 INTERNAL_ERROR', async () => {
  const response = await rawRequest(stack.baseUrl, 'DELETE', '/v1/slow/1', { headers: bearer(key) });
  expect(response.status).toBe(500);
  expect(JSON.parse(response.body)).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
});

test('a stream still open at the deadline is destroyed and the client sees a cut body', async () => {
  const response = await rawRequest(stack.baseUrl, 'GET', '/v1/stalled', { headers: bearer(key) });
  expect(response.status).toBe(200);
  expect(response.body).toBe('[{"id":1}');
  expect(response.complete).toBe(false);
  expect(streamSeen?.destroyed).toBe(true);
});
