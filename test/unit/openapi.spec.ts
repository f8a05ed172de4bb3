// The document's content; that the committed openapi.json is this document is test/unit/generated.spec.ts.
import { buildV2OpenApiDocument } from '../../lib/contract/openapi/v2';
import { ERROR_CODES, INSUFFICIENT_SCOPE_WWW_AUTHENTICATE } from '../../lib/contract/errors';
import { RATE_LIMIT_HEADERS } from '../../lib/contract/headers';
import { ADDRESS_RETRY_AFTER_SECONDS } from '../../lib/contract/address-limit';
import { buildOpenApiDocument, type JsonObject } from '../../lib/contract/openapi/document';
import { ORDER_STATUSES } from '../../lib/contract/order';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { API_VERSION, ROUTES } from '../../lib/contract/routes';
import { scopeAllows } from '../../lib/contract/scopes';

const doc = buildOpenApiDocument();
const at = (value: unknown, ...keys: string[]): JsonObject =>
  keys.reduce((node, key) => (node as JsonObject)[key] as JsonObject, value as JsonObject);
const operation = (path: string, method: string) => at(doc, 'paths', path, method);
const statuses = (path: string, method: string) => Object.keys(at(operation(path, method), 'responses'));

test('servers, security, version and tag', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(at(doc, 'info').version).toBe(API_VERSION);
  const urls = (doc.servers as JsonObject[]).map((s) => s.url);
  expect(urls.slice(0, 2)).toEqual(['{base_url}', '{staging_url}']);
  for (const server of doc.servers as JsonObject[]) {
    const defaults = Object.values(at(server, 'variables')).map((v) => (v as JsonObject).default as string);
    expect(String(server.url).replace(/\{(\w+)\}/g, () => defaults.shift() ?? '')).toMatch(/\/v1$/);
  }
  expect(doc.security).toEqual([{ bearerAuth: [] }]);
  expect(at(doc, 'components', 'securitySchemes', 'bearerAuth')).toMatchObject({ type: 'http', scheme: 'bearer' });
  expect(operation('/store/orders', 'get')).toMatchObject({ operationId: 'listOrders', tags: ['orders'] });
  expect(operation('/store/orders/{orderId}', 'delete')).toMatchObject({
    operationId: 'cancelOrder',
    tags: ['orders'],
  });
  expect(Object.values(doc.paths as JsonObject).flatMap((p) => Object.keys(p as JsonObject))).toHaveLength(
    ROUTES.length,
  );
});

test('every status each operation can answer', () => {
  expect(statuses('/store/orders', 'get')).toEqual(['200', '400', '401', '406', '429', '500', '503']);
  expect(statuses('/store/orders/{orderId}', 'delete')).toEqual([
    '204',
    '400',
    '401',
    '403',
    '404',
    '409',
    '429',
    '500',
    '503',
  ]);
  expect(Object.keys(at(doc, 'x-gateway-responses')).sort()).toEqual(['400', '404', '405', '429']);
  // The web ACL's answer, to any request, with the fixed wait it declares.
  expect(at(doc, 'x-gateway-responses', '429')).toMatchObject({ 'x-when': 'any-request' });
  expect(at(doc, 'x-gateway-responses', '429', 'headers', 'Retry-After', 'schema').const).toBe(
    ADDRESS_RETRY_AFTER_SECONDS,
  );
});

test('a 403 INSUFFICIENT_SCOPE, with its WWW-Authenticate, on exactly the operations a read-only key cannot call', () => {
  for (const route of ROUTES) {
    const response = operation(route.path, route.method.toLowerCase()).responses as JsonObject;
    if (scopeAllows('read', route.method)) {
      expect(response['403']).toBeUndefined();
      continue;
    }
    const forbidden = at(response, '403');
    const codes = at(forbidden, 'content', 'application/json', 'schema', 'allOf', '1', 'properties', 'code')
      .enum as string[];
    expect(codes).toEqual(['INSUFFICIENT_SCOPE']);
    expect(at(forbidden, 'headers', 'WWW-Authenticate', 'schema').const).toBe(INSUFFICIENT_SCOPE_WWW_AUTHENTICATE);
    // Refused before the limiter: no rate-limit header.
    expect(Object.keys(at(forbidden, 'headers'))).toEqual(['WWW-Authenticate']);
  }
});

test("the gateway's 400 BAD_REQUEST is documented on every operation, with no rate-limit header required", () => {
  for (const route of ROUTES) {
    const response = at(operation(route.path, route.method.toLowerCase()), 'responses', '400');
    const codes = at(response, 'content', 'application/json', 'schema', 'allOf', '1', 'properties', 'code')
      .enum as string[];
    expect(codes).toContain('BAD_REQUEST');
    expect(response.description).toContain('`BAD_REQUEST`');
    const headers = Object.values((response.headers ?? {}) as JsonObject) as JsonObject[];
    expect(headers.filter((header) => header.required === true)).toEqual([]);
  }
  // listOrders has no 400 of its own: the gateway's answer carries no header at all.
  expect(at(operation('/store/orders', 'get'), 'responses', '400').headers).toBeUndefined();
});

test('the orderId parameter warns generated clients that a JS number loses digits, and says what to do', () => {
  const [orderId] = operation('/store/orders/{orderId}', 'delete').parameters as JsonObject[];
  expect(orderId?.schema).toEqual({ type: 'integer', format: 'int64' });
  expect(orderId?.description).toMatch(/9007199254740993.*9007199254740992/s);
  expect(orderId?.description).toMatch(/int64 as `string`/);
  expect(at(doc, 'info').description).toMatch(/parseAs: 'text'/);
});

test("every error code of the catalogue is documented in v1's or v2's document, each Error enum holding its own", () => {
  const documents = [doc, buildV2OpenApiDocument()];
  const texts = documents.map((d) => JSON.stringify(d.paths) + JSON.stringify(d['x-gateway-responses']));
  for (const code of ERROR_CODES) expect(texts.some((text) => text.includes(`"${code}"`))).toBe(true);
  documents.forEach((d, i) => {
    const own = ERROR_CODES.filter((code) => texts[i]?.includes(`"${code}"`));
    expect(at(d, 'components', 'schemas', 'Error', 'properties', 'code').enum).toEqual(own);
  });
});

test('Order: int64 ids, int32 quantity, status enum, only status required, nothing else allowed', () => {
  const order = at(doc, 'components', 'schemas', 'Order');
  expect(order.required).toEqual(['status']);
  expect(order.additionalProperties).toBe(false);
  expect(at(order, 'properties', 'id')).toMatchObject({ type: 'integer', format: 'int64' });
  expect(at(order, 'properties', 'petId')).toMatchObject({ type: 'integer', format: 'int64' });
  expect(at(order, 'properties', 'quantity')).toMatchObject({
    type: 'integer',
    format: 'int32',
    maximum: 2_147_483_647,
  });
  expect(at(order, 'properties', 'shipDate')).toMatchObject({ type: 'string', format: 'date-time' });
  expect(at(order, 'properties', 'status').enum).toEqual([...ORDER_STATUSES]);
});

test('headers: rate limits on answers to a valid key, Retry-After on 429 and 503, WWW-Authenticate on 401', () => {
  const responses = at(operation('/store/orders/{orderId}', 'delete'), 'responses');
  const headers = (status: string) => at(responses, status, 'headers');
  for (const status of ['204', '404', '409']) {
    for (const name of Object.values(RATE_LIMIT_HEADERS)) expect(at(headers(status), name).required).toBe(true);
  }
  // 400 is INVALID_ORDER_ID (the limiter ran) or the gateway's BAD_REQUEST (it did not); 429 is the
  // limiter's, or the web ACL's ADDRESS_RATE_LIMITED (before anything ran).
  for (const status of ['400', '429', '500', '503'])
    expect(at(headers(status), RATE_LIMIT_HEADERS.limit).required).toBe(false);
  expect(Object.keys(headers('401'))).toEqual(['WWW-Authenticate']);
  expect(at(headers('429'), 'Retry-After').required).toBe(true);
  expect(at(headers('503'), 'Retry-After').required).toBe(true);
});

test('the plan table in the description comes from PLAN_LIMITS', () => {
  const description = String(at(doc, 'info').description);
  for (const [plan, limits] of Object.entries(PLAN_LIMITS)) {
    const row = `| ${plan[0]?.toUpperCase()}${plan.slice(1)} | ${limits.perMinute.toLocaleString('en-US')} | ${limits.perDay.toLocaleString('en-US')} |`;
    expect(description).toContain(row);
  }
});

test('a route without a contract, or with an undeclared path parameter, is refused', () => {
  const route = { ...ROUTES[0]!, operationId: 'mystery' };
  expect(() => buildOpenApiDocument([route])).toThrow(/no operation contract/);
  expect(() => buildOpenApiDocument([{ ...route, path: '/x/{nope}' }], { mystery: { errors: [] } })).toThrow(
    /not declared/,
  );
});
