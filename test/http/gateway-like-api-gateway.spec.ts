// Where a client could tell the local gateway from API Gateway REST: paths taken as sent, one
// trailing slash, the 10 MB payload limit, refusals node would answer bare, pipelining, and the
// 405 whatever the body.

import { rawExchange, rawRequest } from '../support/raw-http';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

let stack: LocalStack;
let key: string;

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('enterprise', { perMinute: 10_000, perDay: 100_000 }));
  await stack.app.orders.putMany(['1', '2', '3', '4', '5'].map((id) => ({ id, status: 'pending' as const })));
});
afterAll(() => stack.close());

const statusOf = async (id: string) => (await stack.app.orders.get(id))?.status;

/** The last JSON object in the exchange (the body may be chunked). */
function errorBodyIn(response: string): Record<string, unknown> {
  return JSON.parse(response.slice(response.lastIndexOf('{'), response.lastIndexOf('}') + 1)) as Record<
    string,
    unknown
  >;
}

describe('paths are matched as sent, never normalised', () => {
  test.each(['/v1/store/orders/%2e%2e/orders/2', '/v1/store/orders/../orders/2', '/v1/store/orders/%2E%2E/orders/2'])(
    'DELETE %s is 404 and cancels nothing',
    async (path) => {
      const response = await rawRequest(stack.baseUrl, 'DELETE', path, { headers: bearer(key) });
      expect(response.status).toBe(404);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
      expect(await statusOf('2')).toBe('pending');
    },
  );

  test('a dot segment as the id is an invalid id, not another resource', async () => {
    const response = await rawRequest(stack.baseUrl, 'DELETE', '/v1/store/orders/%2e%2e', { headers: bearer(key) });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'INVALID_ORDER_ID' });
  });

  test('an empty segment matches no resource', async () => {
    const response = await rawRequest(stack.baseUrl, 'DELETE', '/v1/store/orders//3', { headers: bearer(key) });
    expect(response.status).toBe(404);
    expect(await statusOf('3')).toBe('pending');
  });
});

describe('one trailing slash names the same resource', () => {
  test('GET /v1/store/orders/ lists the orders', async () => {
    const plain = await rawRequest(stack.baseUrl, 'GET', '/v1/store/orders', { headers: bearer(key) });
    const slashed = await rawRequest(stack.baseUrl, 'GET', '/v1/store/orders/', { headers: bearer(key) });
    expect(slashed.status).toBe(200);
    expect(JSON.parse(slashed.body)).toEqual(JSON.parse(plain.body));
  });

  test('DELETE /v1/store/orders/ is the list resource: 405 with Allow: GET', async () => {
    const response = await rawRequest(stack.baseUrl, 'DELETE', '/v1/store/orders/', { headers: bearer(key) });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET');
  });

  test('DELETE /v1/store/orders/4/ cancels order 4', async () => {
    const response = await rawRequest(stack.baseUrl, 'DELETE', '/v1/store/orders/4/', { headers: bearer(key) });
    expect(response.status).toBe(204);
    expect(await statusOf('4')).toBe('cancelled');
  });
});

describe('the 10 MB payload limit', () => {
  test('a 12 MB body is 400 BAD_REQUEST and the order stays pending', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/store/orders/1`, {
      method: 'DELETE',
      headers: bearer(key),
      body: 'x'.repeat(12 * 1024 * 1024),
    });
    await expectError(response, 400, 'BAD_REQUEST');
    expect(await statusOf('1')).toBe('pending');
  });

  test('a body of exactly 10 MB is passed on', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/store/orders/5`, {
      method: 'DELETE',
      headers: bearer(key),
      body: 'x'.repeat(10 * 1024 * 1024),
    });
    expect(response.status).toBe(204);
    expect(await statusOf('5')).toBe('cancelled');
  });
});

describe('the 405 answers every body the same', () => {
  test.each([
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'a=1&b=2'],
    ['application/json', '{"statusCode": 200}'],
    ['application/json', 'not json'],
  ])('PUT with %s %j: 405 METHOD_NOT_ALLOWED, Allow: DELETE', async (type, body) => {
    const response = await fetch(`${stack.baseUrl}/v1/store/orders/1`, {
      method: 'PUT',
      headers: { 'Content-Type': type },
      body,
    });
    await expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('DELETE');
  });
});

test('a content type the deployed 405 method does not map: the same 405 without Allow', async () => {
  const response = await fetch(`${stack.baseUrl}/v1/store/orders/1`, {
    method: 'PUT',
    headers: { 'Content-Type': 'image/png' },
    body: 'png',
  });
  await expectError(response, 405, 'METHOD_NOT_ALLOWED');
  expect(response.headers.get('allow')).toBeNull();
});

describe('no CORS: the API is server-to-server (docs/api.md, "Browsers and CORS")', () => {
  const preflight = {
    Origin: 'https://shop.example',
    'Access-Control-Request-Method': 'GET',
    'Access-Control-Request-Headers': 'authorization',
  };
  const corsHeaders = (response: Response) =>
    [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));

  test.each([
    ['/v1/store/orders', 'GET'],
    ['/v1/store/orders/1', 'DELETE'],
    ['/v2/store/orders', 'GET'],
  ])(
    "a browser's preflight OPTIONS %s is 405 METHOD_NOT_ALLOWED, Allow: %s, with no Access-Control header",
    async (path, allow) => {
      const response = await fetch(`${stack.baseUrl}${path}`, { method: 'OPTIONS', headers: preflight });
      await expectError(response, 405, 'METHOD_NOT_ALLOWED');
      expect(response.headers.get('allow')).toBe(allow);
      expect(corsHeaders(response)).toEqual([]);
    },
  );

  test('a request with an Origin is served as any other, with no Access-Control header', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/store/orders`, {
      headers: { ...bearer(key), Origin: preflight.Origin },
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(corsHeaders(response)).toEqual([]);
  });
});

describe('refusals the gateway makes itself carry the Error body', () => {
  test('no Host header: 400 BAD_REQUEST as JSON', async () => {
    const response = await rawExchange(stack.baseUrl, 'GET /v1/store/orders HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(response.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(response).toMatch(/content-type: application\/json/i);
    expect(errorBodyIn(response)).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });

  test('Expect: foo: 400 BAD_REQUEST as JSON, not a bare 417', async () => {
    const response = await rawExchange(
      stack.baseUrl,
      'GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n',
    );
    expect(response.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(errorBodyIn(response)).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });

  test('a malformed request pipelined after a DELETE leaves the DELETE its answer', async () => {
    const response = await rawExchange(
      stack.baseUrl,
      `DELETE /v1/store/orders/3 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n` + 'GARBAGE\r\n\r\n',
    );
    const statusLines = response.split('\r\n').filter((line) => line.startsWith('HTTP/1.1 '));
    expect(statusLines).toEqual(['HTTP/1.1 204 No Content', 'HTTP/1.1 400 Bad Request']);
    expect(errorBodyIn(response)).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(await statusOf('3')).toBe('cancelled');
  });
});
