import { REDACTED_KEY } from '../../lib/core/access/key-format';
import type { AccessLogEntry } from '../../tools/local/gateway';
import { bearer, startLocalStack, type LocalStack } from '../support/local-stack';

// A client that puts its key in the URL must not find it in the local access log, wherever in
// the path or query it went and however it was escaped.

let stack: LocalStack;
const log: AccessLogEntry[] = [];

beforeAll(async () => {
  stack = await startLocalStack({ onAccessLog: (entry) => log.push(entry) });
});
afterAll(() => stack.close());

test('keys in the query or the path are redacted from logged paths', async () => {
  const { key } = await stack.newKey('free');
  const body = key.slice('sok_'.length);
  const targets = [
    `/v1/store/orders?api_key=${key}`,
    `/v1/store/orders?x=1&key=${key}&y=2`,
    `/v1/store/orders/${key}`,
    `/v1/${key}/store/orders`,
    `/v1/store/orders?api_key=sok%5F${body}`,
    `/v1/store/orders?api_key=${key.slice(0, 20)}%${key.charCodeAt(20).toString(16)}${key.slice(21)}`,
    `/v1/store/orders?api_key=${key.slice(0, -3)}`,
  ];
  log.length = 0;
  for (const target of targets) {
    const response = await fetch(`${stack.baseUrl}${target}`, { headers: bearer(key) });
    await response.arrayBuffer();
  }

  expect(log.map((entry) => entry.path)).toEqual([
    `/v1/store/orders?api_key=${REDACTED_KEY}`,
    `/v1/store/orders?x=1&key=${REDACTED_KEY}&y=2`,
    `/v1/store/orders/${REDACTED_KEY}`,
    `/v1/${REDACTED_KEY}/store/orders`,
    `/v1/store/orders?api_key=${REDACTED_KEY}`,
    `/v1/store/orders?api_key=${REDACTED_KEY}`,
    `/v1/store/orders?api_key=${REDACTED_KEY}`,
  ]);
  const written = JSON.stringify(log);
  expect(written).not.toContain(body.slice(0, 12));
  expect(written).not.toContain(body.slice(-12));
});

test('paths without a key are logged as sent', async () => {
  const { key } = await stack.newKey('free');
  log.length = 0;
  await (
    await fetch(`${stack.baseUrl}/v1/store/orders/12?sok=1&api_key=nope`, { method: 'DELETE', headers: bearer(key) })
  ).arrayBuffer();
  expect(log.map((entry) => entry.path)).toEqual(['/v1/store/orders/12?sok=1&api_key=nope']);
});
