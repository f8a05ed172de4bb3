// The typed client's webhook endpoint calls against the local stack, and its verify helper against
// deliveries our signer signs: exact ids, and what a receiver must refuse refused.
import type { IncomingHttpHeaders } from 'node:http';
import { WebhookVerificationError } from 'standardwebhooks';
import { StoreOrdersApiError, StoreOrdersClient } from '../../client/client';
import { verifyWebhook } from '../../client/webhooks';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH } from '../../lib/contract/routes';
import { WEBHOOK_HEADERS, webhookEvent, webhookEventId, webhookEventJson } from '../../lib/contract/webhooks';
import { generateSigningSecret, signedHeaders } from '../../lib/core/webhooks/signature';
import { startLocalStack, type LocalStack } from '../support/local-stack';

let stack: LocalStack;
let api: StoreOrdersClient;

beforeAll(async () => {
  stack = await startLocalStack({ webhookDestinations: { resolve: async () => ['93.184.216.34'] } });
  const { key } = await stack.newKey('enterprise', MAX_CUSTOM_LIMITS);
  // Through stack.call, so every answer the client reads is also checked against the v2 document.
  const viaStack = stack.fetch;
  api = new StoreOrdersClient({ baseUrl: `${stack.baseUrl}${BASE_PATH}`, apiKey: key, fetch: viaStack });
});
afterAll(() => stack.close());

test('create, list, get, rotate and delete an endpoint; errors come typed', async () => {
  const created = await api.createWebhookEndpoint({
    url: 'https://hooks.example.com/in',
    eventTypes: ['order.created'],
  });
  expect(created.secret).toMatch(/^whsec_/);
  const { secret: _secret, ...view } = created;
  expect(await api.listWebhookEndpoints()).toEqual([view]);
  expect(await api.getWebhookEndpoint(created.id)).toEqual(view);
  const rotated = await api.rotateWebhookEndpointSecret(created.id);
  expect(rotated.secret).not.toBe(created.secret);
  await api.deleteWebhookEndpoint(created.id);
  await api.deleteWebhookEndpoint(created.id);
  await expect(api.getWebhookEndpoint(created.id)).rejects.toMatchObject({
    code: 'WEBHOOK_ENDPOINT_NOT_FOUND',
    status: 404,
  });
  await expect(api.createWebhookEndpoint({ url: 'https://10.0.0.1/' })).rejects.toMatchObject({
    code: 'WEBHOOK_URL_REFUSED',
    status: 400,
  });
});

test('a create answered 503 is not sent again (it may have been made); a list is', async () => {
  let calls = 0;
  const failing: typeof fetch = async () => {
    calls++;
    return new Response('{"code":"SERVICE_UNAVAILABLE","message":"x","status":503}', {
      status: 503,
      headers: { 'Retry-After': '1' },
    });
  };
  const client = new StoreOrdersClient({
    baseUrl: 'http://api.test/v1',
    apiKey: 'k',
    fetch: failing,
    sleep: async () => {},
    maxRetries: 2,
  });
  await expect(client.createWebhookEndpoint({ url: 'https://hooks.example.com' })).rejects.toBeInstanceOf(
    StoreOrdersApiError,
  );
  expect(calls).toBe(1);
  await expect(client.listWebhookEndpoints()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  expect(calls).toBe(1 + 3);
});

describe('verifyWebhook', () => {
  const order = {
    id: '9223372036854775807',
    petId: '9007199254740993',
    status: 'cancelled' as const,
    updatedAt: '2026-12-01T09:00:00.000Z',
  };
  const body = webhookEventJson(webhookEvent('order.cancelled', order));
  const id = webhookEventId(order.id, order.updatedAt, 'order.cancelled');
  const secret = generateSigningSecret();
  const signed = () => signedHeaders([secret], id, Math.floor(Date.now() / 1000), body);

  test('returns the event with exact int64 ids, from Node headers or fetch Headers', () => {
    const nodeHeaders: IncomingHttpHeaders = { ...signed(), host: 'receiver' };
    expect(verifyWebhook(secret, body, nodeHeaders)).toEqual({
      type: 'order.cancelled',
      timestamp: order.updatedAt,
      data: order,
    });
    expect(verifyWebhook(secret, Buffer.from(body), new Headers(signed())).data).toMatchObject({ id: order.id });
  });

  test('refuses a tampered body, another secret and an old timestamp', () => {
    expect(() => verifyWebhook(secret, body.replace('cancelled', 'pending'), signed())).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook(generateSigningSecret(), body, signed())).toThrow(WebhookVerificationError);
    const old = signedHeaders([secret], id, Math.floor(Date.now() / 1000) - 600, body);
    expect(() => verifyWebhook(secret, body, old)).toThrow('Message timestamp too old');
    expect(() => verifyWebhook(secret, body, { [WEBHOOK_HEADERS.id]: id })).toThrow('Missing required headers');
  });
});
