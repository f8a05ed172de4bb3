// `keys usage`: a key's plan, limits and current use, read from the limiter item the service writes.
import { KEY_PREFIX } from '../../lib/core/access/key-format';
import type { RateLimiter } from '../../lib/stores/rate-limiter';
import { BAN, PLAN_LIMITS } from '../../lib/contract/plans';
import { DEFAULT_KEY_SCOPE } from '../../lib/contract/scopes';
import { banThreshold } from '../../lib/core/limiter/rules';
import { adminRunner, testTarget, type Admin } from '../support/admin-harness';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let limiter: RateLimiter;
let admin: Admin;
let nowMs = Date.parse('2026-11-22T10:00:15.000Z');

beforeAll(async () => {
  tables = await createTestTables();
  limiter = tables.stores({ now: () => nowMs }).limiter;
  admin = adminRunner(() => testTarget(tables), { now: () => new Date(nowMs) });
});
afterAll(() => tables.drop());

async function newKey(...options: string[]): Promise<string> {
  const run = await admin('keys', 'create', ...options, '--json');
  expect(run.code).toBe(0);
  return (JSON.parse(run.stdout) as { id: string }).id;
}

async function usage(id: string) {
  const run = await admin('keys', 'usage', id, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

test('a key that has sent nothing has used nothing', async () => {
  const id = await newKey('--plan', 'pro');
  expect(await usage(id)).toEqual({
    id,
    plan: 'pro',
    scope: DEFAULT_KEY_SCOPE,
    limits: PLAN_LIMITS.pro,
    minute: {
      used: 0,
      remaining: PLAN_LIMITS.pro.perMinute,
      resetAt: Date.parse('2026-11-22T10:01:00Z') / 1000,
      refused: 0,
    },
    day: { used: 0, remaining: PLAN_LIMITS.pro.perDay, resetAt: Date.parse('2026-11-23T00:00:00Z') / 1000 },
    bannedUntil: null,
  });
});

test("this minute's and today's counts, refusals and the ban, as the limiter stored them", async () => {
  const id = await newKey('--plan', 'enterprise', '--rpm', '3', '--rpd', '10');
  const limits = { perMinute: 3, perDay: 10 };
  for (let i = 0; i < 2; i++) await limiter.admit(id, limits);
  nowMs += 60_000;
  for (let i = 0; i < 5; i++) await limiter.admit(id, limits);
  const text = await admin('keys', 'usage', id);
  expect(text.code).toBe(0);
  expect(text.stdout.split('\n').slice(1)).toEqual([
    '  limits:      3/min, 10/day',
    `  scope:       ${DEFAULT_KEY_SCOPE}`,
    '  this minute: 3 used, 0 remaining, 2 refused; resets 2026-11-22T10:02:00.000Z',
    '  today (UTC): 5 used, 5 remaining; resets 2026-11-23T00:00:00.000Z',
    '  ban:         none',
  ]);

  // Refusals past the threshold: banned from now for the ban's length.
  for (let refused = 2; refused <= banThreshold(limits); refused++) await limiter.admit(id, limits);
  const bannedUntil = nowMs / 1000 + BAN.durationSeconds;
  expect(await usage(id)).toMatchObject({
    minute: { used: 3, remaining: 0, refused: banThreshold(limits) + 1 },
    day: { used: 5, remaining: 5 },
    bannedUntil,
  });
  expect((await admin('keys', 'usage', id)).stdout).toContain(
    `  ban:         banned until ${new Date(bannedUntil * 1000).toISOString()}`,
  );

  // A minute later the minute's counts are those of the new minute; the day's and the ban stay.
  nowMs += 60_000;
  expect(await usage(id)).toMatchObject({
    minute: { used: 0, remaining: 3, refused: 0 },
    day: { used: 5 },
    bannedUntil: expect.any(Number),
  });
  nowMs -= 120_000;
});

test("a read-only key's usage shows its scope, in JSON and in text", async () => {
  const id = await newKey('--plan', 'free', '--scope', 'read');
  expect(await usage(id)).toMatchObject({ id, plan: 'free', scope: 'read' });
  expect((await admin('keys', 'usage', id)).stdout).toContain('  scope:       read (GET only)');
});

test('an unknown key id is a failure; a key instead of an id is refused without being echoed', async () => {
  const unknown = await admin('keys', 'usage', 'key_00000000000000000000');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('No API key with id key_00000000000000000000');
  const key = `${KEY_PREFIX}abcdefghijklmnopqrstuvwxyz0123456789`;
  const refused = await admin('keys', 'usage', key);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('looks like an API key');
  expect(refused.stderr).not.toContain(key);
});
