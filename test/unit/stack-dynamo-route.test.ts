// The local stack's route that tells this machine where its DynamoDB is: answered to loopback
// callers only, read back by the smoke command, and never part of the API's OpenAPI document.
import { buildOpenApiDocument } from '../../lib/contract/openapi/document';
import { gatewayResponse } from '../../lib/contract/gateway-responses';
import { tableNamesWithPrefix } from '../../lib/contract/tables';
import { isLoopback, stackDynamoRoute } from '../../tools/local/stack-dynamo-route';
import { parseStackDynamo, STACK_DYNAMO_PATH } from '../../tools/shared/stack-dynamo';

const published = { endpoint: 'http://127.0.0.1:8317', tables: tableNamesWithPrefix('elsewhere') };
const route = stackDynamoRoute(published.endpoint, published.tables);

test.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])(
  '%s is loopback: the route answers it',
  async (ip) => {
    expect(isLoopback(ip)).toBe(true);
    const answer = await route.respond({ remoteAddress: ip });
    expect(answer.statusCode).toBe(200);
    expect(parseStackDynamo(answer.body)).toEqual(published);
  },
);

test.each([undefined, '192.0.2.1', '::ffff:192.0.2.1', '2001:db8::1', '10.0.0.1'])(
  '%s is not loopback: the route answers as an unknown path does',
  async (ip) => {
    expect(isLoopback(ip)).toBe(false);
    expect(await route.respond({ remoteAddress: ip })).toEqual(gatewayResponse('MISSING_AUTHENTICATION_TOKEN'));
  },
);

test.each([
  ['not JSON', 'nope'],
  ['no tables', JSON.stringify({ endpoint: published.endpoint })],
  ['a table missing', JSON.stringify({ ...published, tables: { orders: 'o', apiKeys: 'k' } })],
  ['an endpoint with a path', JSON.stringify({ ...published, endpoint: 'http://127.0.0.1:8000/x' })],
  ['an endpoint that is no URL', JSON.stringify({ ...published, endpoint: '127.0.0.1:8000' })],
])('the smoke command reads nothing from %s', (_case, text) => {
  expect(parseStackDynamo(text)).toBeUndefined();
});

test('the route is not in the OpenAPI document', () => {
  const paths = Object.keys(buildOpenApiDocument().paths as Record<string, unknown>);
  expect(paths.length).toBeGreaterThan(0);
  expect(paths.filter((path) => path.includes(STACK_DYNAMO_PATH))).toEqual([]);
});
