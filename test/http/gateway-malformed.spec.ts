// Requests too broken for a route still get the Error body, never node's bare status line.

import { request } from 'node:http';
import { rawExchange } from '../support/raw-http';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack();
});
afterAll(() => stack.close());

const raw = (request: string) => rawExchange(stack.baseUrl, request);

function parse(response: string) {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  return { statusLine: head.split('\r\n')[0], head, body: JSON.parse(body) as Record<string, unknown> };
}

test('oversized headers: 400 BAD_REQUEST with the Error body', async () => {
  const response = parse(await raw(`GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`));
  expect(response.statusLine).toBe('HTTP/1.1 400 Bad Request');
  expect(response.head).toContain('Content-Type: application/json');
  expect(response.body).toEqual({ code: 'BAD_REQUEST', message: 'The request headers are too large.', status: 400 });
});

test('broken framing: 400 BAD_REQUEST with the Error body', async () => {
  const response = parse(await raw('GARBAGE\r\n\r\n'));
  expect(response.statusLine).toBe('HTTP/1.1 400 Bad Request');
  expect(response.body).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
});

test('a path that is not valid percent-encoding is a 400 for the id, not a crash', async () => {
  const { key } = await stack.newKey('free');
  await expectError(await stack.call('DELETE', '/v1/store/orders/%E0%A4%A', bearer(key)), 400, 'INVALID_ORDER_ID');
  await expectError(await stack.call('DELETE', '/v1/store/orders/%00', bearer(key)), 400, 'INVALID_ORDER_ID');
});

describe('a HEAD request refused while it is parsed', () => {
  // The answer to HEAD has no body (RFC 9110 §9.3.2): with one, the bytes after the head are taken
  // for the next response, and node's client fails with HPE_CLOSED_CONNECTION, showing no status.
  const refused = {
    'oversized headers': `HEAD /v1/store/orders HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    'a raw non-ASCII byte in the path': 'HEAD /v1/store/orders/\u00ff HTTP/1.1\r\nHost: x\r\n\r\n',
  };

  test.each(Object.entries(refused))('%s: 400 with the head alone', async (_case, request) => {
    const response = await rawExchange(stack.baseUrl, request);
    const [head = '', ...rest] = response.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(rest.join('\r\n\r\n')).toBe('');
  });

  test("node's own client reads the 400", async () => {
    const url = new URL(stack.baseUrl);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method: 'HEAD',
          path: '/v1/store/orders',
          headers: { 'X-Big': 'a'.repeat(20_000) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
  });
});
