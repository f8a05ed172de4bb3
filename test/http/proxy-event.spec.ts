// The proxy event the local gateway hands a handler, compared field by field with events API
// Gateway REST delivered for the same request.
//
// Sources:
// - AWS, API Gateway Developer Guide, "Set up Lambda proxy integrations in API Gateway", section
//   "Input format of a Lambda function for proxy integration": the event captured for
//   `POST /testStage/hello/world?name=me` (with `multivalueName=you&multivalueName=me`), body
//   `{\r\n\t"a": 1\r\n}`, and the `requestContext` captured with AWS_IAM authorization (for
//   `requestTime`, `requestTimeEpoch`, `path`, `protocol`).
// - aws-powertools/powertools-lambda-python, tests/events/apiGatewayProxyEvent.json (a REST event
//   with `domainName`, `domainPrefix`, `extendedRequestId`) and
//   tests/events/apiGatewayProxyEventPrincipalId.json (`requestContext.authorizer` behind a Lambda
//   authorizer: `principalId`, a numeric `integrationLatency`, context values as strings).
// The sample API routes through a greedy `/{proxy+}` resource on an edge-optimised endpoint; this
// one declares `/hello/world` on a regional one, so `resource`, `pathParameters`, the stage
// variables and the headers CloudFront adds are compared with what this API declares instead.

import { request } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { DEFAULT_KEY_SCOPE } from '../../lib/contract/scopes';
import { FUNCTIONS } from '../../lib/contract/deployment';
import { requestTime } from '../../tools/local/proxy-event';
import { createApiKey } from '../../lib/stores/key-service';
import type { Route } from '../../lib/contract/routes';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { startLocalStack, type LocalStack } from '../support/local-stack';
import { rawRequest } from '../support/raw-http';

/** The captured event's fields for this request, as the Developer Guide prints them. */
const CAPTURED = {
  topLevelKeys: [
    'resource',
    'path',
    'httpMethod',
    'headers',
    'multiValueHeaders',
    'queryStringParameters',
    'multiValueQueryStringParameters',
    'pathParameters',
    'stageVariables',
    'requestContext',
    'body',
    'isBase64Encoded',
  ],
  path: '/hello/world',
  httpMethod: 'POST',
  clientHeaders: [
    ['Accept', '*/*'],
    ['Accept-Encoding', 'gzip, deflate'],
    ['cache-control', 'no-cache'],
    ['Content-Type', 'application/json'],
    ['headerName', 'headerValue'],
    ['Host', 'gy415nuibc.execute-api.us-east-1.amazonaws.com'],
    ['Postman-Token', '9f583ef0-ed83-4a38-aef3-eb9ce3f7a57f'],
    ['User-Agent', 'PostmanRuntime/2.4.5'],
  ] as const,
  queryStringParameters: { name: 'me', multivalueName: 'me' },
  multiValueQueryStringParameters: { name: ['me'], multivalueName: ['you', 'me'] },
  body: '{\r\n\t"a": 1\r\n}',
  isBase64Encoded: false,
  requestContextKeys: [
    'accountId',
    'resourceId',
    'stage',
    'requestId',
    'identity',
    'resourcePath',
    'httpMethod',
    'apiId',
    'requestTime',
    'path',
    'protocol',
    'requestTimeEpoch',
    'domainName',
    'domainPrefix',
    'extendedRequestId',
    'authorizer',
  ],
  identityKeys: [
    'cognitoIdentityPoolId',
    'accountId',
    'cognitoIdentityId',
    'caller',
    'apiKey',
    'sourceIp',
    'cognitoAuthenticationType',
    'cognitoAuthenticationProvider',
    'userArn',
    'userAgent',
    'user',
  ],
  /** The AWS_IAM example: this epoch was delivered with this requestTime. */
  requestTimeEpoch: 1519166937665,
  requestTime: '20/Feb/2018:22:48:57 +0000',
  protocol: 'HTTP/1.1',
};

const helloWorld: Route = {
  operationId: 'helloWorld',
  method: 'POST',
  path: '/hello/world',
  function: 'cancel-order',
  tag: 'test',
  summary: 'Echo the event (test fixture)',
  streaming: false,
  stability: 'experimental',
};

let stack: LocalStack;
let seen: { event: APIGatewayProxyEvent; context: Context } | undefined;

beforeAll(async () => {
  stack = await startLocalStack({
    extraRoutes: [
      {
        route: helloWorld,
        handler: async (event: APIGatewayProxyEvent, context: Context) => {
          seen = { event, context };
          return { statusCode: 200, body: '{}' };
        },
      },
    ],
  });
});
afterAll(() => stack.close());

function send(key: string): Promise<number> {
  const { hostname, port } = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method: 'POST',
        path: '/v1/hello/world?name=me&multivalueName=you&multivalueName=me',
        headers: [...CAPTURED.clientHeaders.flat(), 'Authorization', `Bearer ${key}`],
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(CAPTURED.body);
  });
}

test('the local proxy event has the fields and values API Gateway delivered for the same request', async () => {
  const { key, record } = await createApiKey(stack.app.keys, { plan: 'pro' });
  expect(await send(key)).toBe(200);
  if (!seen) throw new Error('the handler was not invoked');
  const { event } = seen;

  expect(Object.keys(event).sort()).toEqual([...CAPTURED.topLevelKeys].sort());
  expect(event.path).toBe(CAPTURED.path);
  expect(event.httpMethod).toBe(CAPTURED.httpMethod);
  expect(event.body).toBe(CAPTURED.body);
  expect(event.isBase64Encoded).toBe(CAPTURED.isBase64Encoded);
  for (const [name, value] of CAPTURED.clientHeaders) {
    expect([name, event.headers[name]]).toEqual([name, value]);
    expect([name, event.multiValueHeaders[name]]).toEqual([name, [value]]);
  }
  expect(event.queryStringParameters).toEqual(CAPTURED.queryStringParameters);
  expect(event.multiValueQueryStringParameters).toEqual(CAPTURED.multiValueQueryStringParameters);
  // What this API declares where the sample API differs: no greedy resource, no stage variables.
  expect(event.resource).toBe(helloWorld.path);
  expect(event.pathParameters).toBeNull();
  expect(event.stageVariables).toBeNull();

  const context = event.requestContext;
  expect(Object.keys(context)).toEqual(expect.arrayContaining(CAPTURED.requestContextKeys));
  expect(Object.keys(context.identity)).toEqual(expect.arrayContaining(CAPTURED.identityKeys));
  expect(context.httpMethod).toBe(CAPTURED.httpMethod);
  expect(context.resourcePath).toBe(helloWorld.path);
  expect(context.path).toBe(`/${context.stage}${CAPTURED.path}`);
  expect(context.protocol).toBe(CAPTURED.protocol);
  expect(context.domainName).toBe('gy415nuibc.execute-api.us-east-1.amazonaws.com');
  expect(context.domainPrefix).toBe('gy415nuibc');
  expect(context.identity.userAgent).toBe('PostmanRuntime/2.4.5');
  expect(typeof context.identity.sourceIp).toBe('string');
  expect(typeof context.requestTimeEpoch).toBe('number');
  expect(context.requestTime).toBe(requestTime(context.requestTimeEpoch));
  expect(requestTime(CAPTURED.requestTimeEpoch)).toBe(CAPTURED.requestTime);

  // Behind a Lambda authorizer: the principal, a numeric latency, every context value a string,
  // and the key API Gateway matched from the authorizer's usage identifier.
  const authorizer = context.authorizer as Record<string, unknown>;
  expect(authorizer).toEqual({
    principalId: record.id,
    integrationLatency: expect.any(Number),
    keyId: record.id,
    plan: 'pro',
    perMinute: String(PLAN_LIMITS.pro.perMinute),
    perDay: String(PLAN_LIMITS.pro.perDay),
    scope: DEFAULT_KEY_SCOPE,
  });
  expect(context.identity.apiKey).toBe(record.hash);
  expect(context.identity.apiKeyId).toMatch(/^[0-9a-z]{10}$/);
});

test('the handler gets the Lambda context of its function as deployed', async () => {
  const { key } = await createApiKey(stack.app.keys, { plan: 'free' });
  expect(await send(key)).toBe(200);
  if (!seen) throw new Error('the handler was not invoked');
  const settings = FUNCTIONS[helloWorld.function];
  expect(seen.context.functionName).toBe(helloWorld.function);
  expect(seen.context.memoryLimitInMB).toBe(String(settings.memoryMb));
  const remaining = seen.context.getRemainingTimeInMillis();
  expect(remaining).toBeGreaterThan(0);
  expect(remaining).toBeLessThanOrEqual(settings.timeoutSeconds * 1000);
});

test("names of an object's inherited members are the event's own keys, as in the JSON Lambda parses", async () => {
  const { key } = await createApiKey(stack.app.keys, { plan: 'pro' });
  const names = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];
  const query = names.map((name, i) => `${name}=${i}&${name}=${i}b`).join('&');
  const headers = Object.fromEntries([['Authorization', `Bearer ${key}`], ...names.map((name, i) => [name, `${i}`])]);
  const response = await rawRequest(stack.baseUrl, 'POST', `/v1/hello/world?${query}`, { headers });
  expect(response.status).toBe(200);
  const event = seen?.event;
  if (!event || event.requestContext.requestId !== response.headers['x-amzn-requestid'])
    throw new Error('the handler was not invoked for this request');
  // API Gateway's event is JSON; Lambda's JSON.parse gives every name, `__proto__` included, an own key.
  const own = (map: object | null, name: string): unknown => Object.getOwnPropertyDescriptor(map ?? {}, name)?.value;
  for (const map of [event.queryStringParameters, event.multiValueQueryStringParameters, event.headers])
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
  names.forEach((name, i) => {
    expect([name, own(event.queryStringParameters, name)]).toEqual([name, `${i}b`]);
    expect([name, own(event.multiValueQueryStringParameters, name)]).toEqual([name, [`${i}`, `${i}b`]]);
    expect([name, own(event.headers, name)]).toEqual([name, `${i}`]);
    expect([name, own(event.multiValueHeaders, name)]).toEqual([name, [`${i}`]]);
  });
});
