// The DynamoDB limiter store's expressions on the embedded server, write by write: the same cases
// as the in-memory store's (test/support/limiter-store-contract.ts), so the algorithm's unit tests
// over that one hold here. Both server behaviours: the embedded server (the item read after a
// failed condition) and DynamoDB (the item returned with it). Then what only DynamoDB keeps: the
// items' expiry.
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { TABLES } from '../../lib/contract/tables';
import { banFrom } from '../../lib/core/limiter/rules';
import type { LimiterItem } from '../../lib/core/limiter/store';
import { EXPIRY_GRACE_SECONDS, limiterKey, windowAt } from '../../lib/core/limiter/windows';
import { createTestTables, type TestTables } from '../support/dynamo';
import { limiterStoreContract } from '../support/limiter-store-contract';
import { limiterStoreOn, SERVER_BEHAVIOURS } from '../support/limiter-clients';

let tables: TestTables;

beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

describe.each(SERVER_BEHAVIOURS)('on %s', (behaviour) => {
  let under: ReturnType<typeof limiterStoreOn>;
  beforeAll(() => {
    under = limiterStoreOn(behaviour, tables.endpoint, tables.names.rateLimits);
  });
  afterAll(() => under.doc.destroy());
  limiterStoreContract(() => under.store);
});

describe('expiry', () => {
  let under: ReturnType<typeof limiterStoreOn>;
  beforeAll(() => {
    under = limiterStoreOn('the embedded server', tables.endpoint, tables.names.rateLimits);
  });
  afterAll(() => under.doc.destroy());

  /** The item's TTL attribute, as stored. */
  const expiry = async (item: LimiterItem) => {
    const { Item } = await tables.doc.send(
      new GetCommand({ TableName: tables.names.rateLimits, Key: { pk: limiterKey(item.keyId, item.day) } }),
    );
    return Number(Item?.[TABLES.rateLimits.ttlAttribute]);
  };

  test("an item expires a grace after its day ends, or its ban if later; a ban's next-day item after the ban", async () => {
    const now = Date.parse('2026-11-22T23:55:30Z') / 1000;
    const day = windowAt('day', now);
    const item = { keyId: `key-${randomUUID()}`, day };
    const minute = windowAt('minute', now).start;
    await under.store.take(item, { minute, newMinute: true, now, limits: PLAN_LIMITS.free });
    expect(await expiry(item)).toBe(day.resetAt + EXPIRY_GRACE_SECONDS);

    const ban = { ...banFrom(now), now };
    expect(ban.until).toBeGreaterThan(day.resetAt);
    await under.store.writeBan(item, ban);
    expect(await expiry(item)).toBe(ban.until + EXPIRY_GRACE_SECONDS);
    const tomorrow = { ...item, day: windowAt('day', day.resetAt) };
    await under.store.writeBan(tomorrow, ban);
    expect(await expiry(tomorrow)).toBe(tomorrow.day.resetAt + EXPIRY_GRACE_SECONDS);

    const refusedOnly = { keyId: `key-${randomUUID()}`, day };
    await under.store.recordRefusal(refusedOnly, { minute, newMinute: true });
    expect(await expiry(refusedOnly)).toBe(day.resetAt + EXPIRY_GRACE_SECONDS);
  });

  test("a revocation mark on a new item expires with its day; on an item with a ban it keeps the ban's expiry", async () => {
    const now = Date.parse('2026-11-22T23:55:30Z') / 1000;
    const day = windowAt('day', now);
    const markedOnly = { keyId: `key-${randomUUID()}`, day: windowAt('day', day.resetAt) };
    await under.store.markRevoked(markedOnly, { at: now });
    expect(await expiry(markedOnly)).toBe(markedOnly.day.resetAt + EXPIRY_GRACE_SECONDS);

    const banned = { keyId: `key-${randomUUID()}`, day };
    const ban = { ...banFrom(now), now };
    await under.store.writeBan(banned, ban);
    await under.store.markRevoked(banned, { at: now });
    expect(await expiry(banned)).toBe(ban.until + EXPIRY_GRACE_SECONDS);
  });
});
