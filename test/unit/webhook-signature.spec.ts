// Our signer against the receivers' package: every signature we make verifies with `standardwebhooks`
// (installed for the tests only), and what a receiver must refuse, it refuses.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateSigningSecret, secretKey, signature, signedHeaders } from '../../lib/core/webhooks/signature';
import {
  signingSecrets,
  WEBHOOK_HEADERS,
  WEBHOOK_LIMITS,
  WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS,
  webhookEvent,
  webhookEventId,
  webhookEventJson,
  webhookEndpointView,
  type WebhookEndpointRecord,
} from '../../lib/contract/webhooks';

const ORDER = {
  id: '9223372036854775807',
  petId: '9007199254740993',
  quantity: 2,
  status: 'cancelled' as const,
  updatedAt: '2026-12-01T09:00:00.123Z',
};
const BODY = webhookEventJson(webhookEvent('order.cancelled', ORDER));
const ID = webhookEventId(ORDER.id, ORDER.updatedAt, 'order.cancelled');
const nowSeconds = () => Math.floor(Date.now() / 1000);

function verify(secret: string, headers: Record<string, string>, body = BODY): unknown {
  return new Webhook(secret).verify(body, headers);
}

test('the body is {type, timestamp, data}, data the order as v2 writes it, int64 ids exact', () => {
  expect(BODY).toBe(
    '{"type":"order.cancelled","timestamp":"2026-12-01T09:00:00.123Z","data":{"id":9223372036854775807,' +
      '"petId":9007199254740993,"quantity":2,"status":"cancelled","updatedAt":"2026-12-01T09:00:00.123Z"}}',
  );
});

test('a delivery we sign verifies with the standardwebhooks package, which returns the event', () => {
  const secret = generateSigningSecret();
  const headers = signedHeaders([secret], ID, nowSeconds(), BODY);
  expect(Object.keys(headers).sort()).toEqual(Object.values(WEBHOOK_HEADERS).sort());
  expect(headers[WEBHOOK_HEADERS.signature]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  expect(verify(secret, headers)).toMatchObject({ type: 'order.cancelled', timestamp: ORDER.updatedAt });
  // The package signs the same bytes the same way.
  const timestamp = nowSeconds();
  expect(signature(secret, ID, timestamp, BODY)).toBe(new Webhook(secret).sign(ID, new Date(timestamp * 1000), BODY));
});

test('a tampered body, a wrong secret, a missing header are refused by the package', () => {
  const secret = generateSigningSecret();
  const headers = signedHeaders([secret], ID, nowSeconds(), BODY);
  expect(() => verify(secret, headers, BODY.replace('"cancelled"', '"pending"'))).toThrow(WebhookVerificationError);
  expect(() => verify(generateSigningSecret(), headers)).toThrow('No matching signature found');
  const { [WEBHOOK_HEADERS.id]: _id, ...withoutId } = headers;
  expect(() => verify(secret, withoutId)).toThrow('Missing required headers');
  // Another event's id over the same body: the id is signed too.
  expect(() => verify(secret, { ...headers, [WEBHOOK_HEADERS.id]: 'evt_other' })).toThrow(WebhookVerificationError);
});

test('a timestamp older than the 5 minutes the package allows is refused (a replay), one within them is not', () => {
  const secret = generateSigningSecret();
  const stale = signedHeaders([secret], ID, nowSeconds() - WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS - 60, BODY);
  expect(() => verify(secret, stale)).toThrow('Message timestamp too old');
  const recent = signedHeaders([secret], ID, nowSeconds() - WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS + 60, BODY);
  expect(verify(secret, recent)).toMatchObject({ type: 'order.cancelled' });
});

test("during a rotation's overlap both secrets sign, so a receiver holding either verifies", () => {
  const [previous, current] = [generateSigningSecret(), generateSigningSecret()];
  const at = Date.parse('2026-12-01T09:00:00.000Z');
  const secrets = {
    current,
    previous: { secret: previous, expiresAt: new Date(at + WEBHOOK_LIMITS.secretOverlapMs).toISOString() },
  };
  expect(signingSecrets(secrets, at)).toEqual([current, previous]);
  expect(signingSecrets(secrets, at + WEBHOOK_LIMITS.secretOverlapMs)).toEqual([current]);
  const headers = signedHeaders(signingSecrets(secrets, at), ID, nowSeconds(), BODY);
  expect(headers[WEBHOOK_HEADERS.signature]?.split(' ')).toHaveLength(2);
  expect(verify(previous, headers)).toBeDefined();
  expect(verify(current, headers)).toBeDefined();
  expect(() => verify(generateSigningSecret(), headers)).toThrow('No matching signature found');
});

test('a secret is whsec_ and the base64 of 32 random bytes, as the package takes it', () => {
  const secret = generateSigningSecret((size) => Buffer.alloc(size, 7));
  expect(secret).toBe(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
  expect(secretKey(secret)).toEqual(Buffer.alloc(32, 7));
  expect(() => secretKey('sk_live_123')).toThrow('A signing secret is whsec_ and base64');
  expect(() => signedHeaders([], ID, 1, BODY)).toThrow('at least one secret');
  expect(() => signedHeaders([secret], ID, 1.5, BODY)).toThrow('whole Unix seconds');
});

test("an event's id is the same for the same change and type, and differs for any other", () => {
  expect(ID).toMatch(/^evt_[0-9a-f]{32}$/);
  expect(webhookEventId(ORDER.id, ORDER.updatedAt, 'order.cancelled')).toBe(ID);
  const others = [
    webhookEventId(ORDER.id, ORDER.updatedAt, 'order.updated'),
    webhookEventId(ORDER.id, '2026-12-01T09:00:00.124Z', 'order.cancelled'),
    webhookEventId('9223372036854775806', ORDER.updatedAt, 'order.cancelled'),
  ];
  expect(new Set([ID, ...others]).size).toBe(4);
});

test("an endpoint's view shows no secret, and the previous secret's expiry only while it signs", () => {
  const record: WebhookEndpointRecord = {
    id: 'whe_000000000000000000000001',
    ownerKeyId: 'key_00000000000000000001',
    url: 'https://example.com/h',
    eventTypes: ['order.created'],
    state: { status: 'disabled', since: '2026-12-02T00:00:00.000Z', reason: 'gone', detail: 'HTTP 410' },
    createdAt: '2026-12-01T00:00:00.000Z',
    secrets: { current: 'whsec_AAAA', previous: { secret: 'whsec_BBBB', expiresAt: '2026-12-02T00:00:00.000Z' } },
  };
  const during = webhookEndpointView(record, Date.parse('2026-12-01T12:00:00.000Z'));
  expect(during).toEqual({
    id: record.id,
    url: record.url,
    eventTypes: ['order.created'],
    status: 'disabled',
    statusSince: '2026-12-02T00:00:00.000Z',
    disabledReason: 'gone',
    disabledDetail: 'HTTP 410',
    createdAt: record.createdAt,
    previousSecretExpiresAt: '2026-12-02T00:00:00.000Z',
  });
  expect(JSON.stringify(during)).not.toContain('whsec_');
  expect(webhookEndpointView(record, Date.parse('2026-12-02T00:00:00.000Z'))).not.toHaveProperty(
    'previousSecretExpiresAt',
  );
});
