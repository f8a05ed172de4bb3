// The limiter under parallel requests, on both server behaviours (the embedded server reads after a
// failed condition; DynamoDB returns the item with it). Every answer in these runs is also checked
// for consistent headers against what the limiter item holds afterwards.
import { randomUUID } from 'node:crypto';
import type { Admission, LimiterState } from '../../lib/stores/rate-limiter';
import { PLAN_LIMITS, type Limits } from '../../lib/contract/plans';
import { banThreshold } from '../../lib/core/limiter/rules';
import { refusalAt, windowAt } from '../../lib/core/limiter/windows';
import { createTestTables, type TestTables } from '../support/dynamo';
import { limiterOn, SERVER_BEHAVIOURS } from '../support/limiter-clients';

let tables: TestTables;
let nowMs: number;
const clock = () => nowMs;
const newKey = () => `key-${randomUUID()}`;

beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

/**
 * The headers of every answer agree with the rules and with what the item holds once the burst is
 * over: each served request got its own place in the window that runs out first; a refusal names
 * the window that refused, full in the item, with Reset that window's end (the stored ban end for
 * a ban), never in the past, and Retry-After = Reset - now rounded up, at least 1.
 */
function expectConsistentHeaders(
  admissions: Admission[],
  limits: Limits,
  item: LimiterState,
  answeredAtMs: number,
): void {
  const now = Math.floor(nowMs / 1000);
  const minuteEnd = windowAt('minute', now).resetAt;
  const dayEnd = windowAt('day', now).resetAt;
  const served = admissions.filter((a) => a.admitted);
  // Remaining values are distinct: no two served requests were told the same place.
  const remaining = served.map((a) => a.headers.remaining);
  expect(new Set(remaining).size).toBe(remaining.length);
  for (const a of admissions) {
    if (a.admitted) {
      expect([minuteEnd, dayEnd]).toContain(a.headers.resetAt);
      expect(a.headers.limit).toBe(a.headers.resetAt === minuteEnd ? limits.perMinute : limits.perDay);
      continue;
    }
    expect(a.headers.remaining).toBe(0);
    if (a.reason === 'RATE_LIMITED') {
      expect(a.headers).toEqual({ limit: limits.perMinute, remaining: 0, resetAt: minuteEnd });
      expect(item.inMinute).toBe(limits.perMinute);
    } else if (a.reason === 'QUOTA_EXCEEDED') {
      expect(a.headers).toEqual({ limit: limits.perDay, remaining: 0, resetAt: dayEnd });
      expect(item.day).toBe(limits.perDay);
    } else {
      expect(a.headers).toEqual({ limit: limits.perMinute, remaining: 0, resetAt: item.bannedUntil });
    }
    const answer = refusalAt(a.headers, answeredAtMs);
    expect(answer.headers.resetAt).toBeGreaterThan(Math.floor(answeredAtMs / 1000));
    expect(answer.retryAfterSeconds).toBe(Math.max(1, Math.ceil(answer.headers.resetAt - answeredAtMs / 1000)));
  }
}

/** Hundreds of calls queue in the one embedded server process on a shared machine. */
const BURST_TIMEOUT_MS = 120_000;

describe.each(SERVER_BEHAVIOURS)('on %s', (behaviour) => {
  let under: ReturnType<typeof limiterOn>;
  beforeAll(() => {
    under = limiterOn(behaviour, tables, clock);
  });
  afterAll(() => under.doc.destroy());
  beforeEach(() => {
    nowMs = Date.parse('2026-11-22T10:00:15.000Z');
  });

  const parallel = (key: string, limits: Limits, n: number) =>
    Promise.all(Array.from({ length: n }, () => under.limiter.admit(key, limits)));
  const item = async (key: string) => {
    const state = await under.limiter.read(key, nowMs);
    if (!state) throw new Error('no limiter item');
    return state;
  };

  test(
    '10 then 20 parallel requests on 10/min and 25/day: no QUOTA_EXCEEDED while the day is below 25',
    async () => {
      const limits = { perMinute: 10, perDay: 25 };
      // Two keys side by side, each minute's requests all in flight together: the keys' bursts
      // interleave, and neither counts the other's requests.
      const keys = Array.from({ length: 2 }, newKey);
      const eachKey = <T>(run: (key: string) => Promise<T>) => Promise.all(keys.map(run));
      const first = await eachKey((key) => parallel(key, limits, 10));
      for (const [i, key] of keys.entries()) {
        expect(first[i]?.every((a) => a.admitted)).toBe(true);
        expectConsistentHeaders(first[i] ?? [], limits, await item(key), nowMs);
      }

      nowMs += 60_000;
      const second = await eachKey((key) => parallel(key, limits, 20));
      for (const [i, key] of keys.entries()) {
        const answers = second[i] ?? [];
        expect(answers.filter((a) => a.admitted)).toHaveLength(10);
        expect(answers.filter((a) => !a.admitted).map((a) => !a.admitted && a.reason)).toEqual(
          Array(10).fill('RATE_LIMITED'),
        );
        expect(await item(key)).toMatchObject({ day: 20, inMinute: 10, refused: 10 });
        expectConsistentHeaders(answers, limits, await item(key), nowMs + 1500);
      }

      // The next minute: 5 left in the day, and only then does the day refuse.
      nowMs += 60_000;
      const third = await eachKey((key) => parallel(key, limits, 10));
      for (const [i, key] of keys.entries()) {
        const answers = third[i] ?? [];
        expect(answers.filter((a) => a.admitted)).toHaveLength(5);
        expect(answers.filter((a) => !a.admitted).map((a) => !a.admitted && a.reason)).toEqual(
          Array(5).fill('QUOTA_EXCEEDED'),
        );
        expect(await item(key)).toMatchObject({ day: 25, inMinute: 5 });
        expectConsistentHeaders(answers, limits, await item(key), nowMs);
      }
    },
    BURST_TIMEOUT_MS,
  );

  const free = PLAN_LIMITS.free;
  /** Requests past the limit and the ban threshold together. */
  const BEYOND = 80;

  test(
    `${free.perMinute + banThreshold(free) + BEYOND} parallel requests on a fresh free key serve exactly its limit; those crossing the ban threshold report one ban end`,
    async () => {
      const key = newKey();
      const admissions = await parallel(key, free, free.perMinute + banThreshold(free) + BEYOND);
      const outcomes = admissions.map((a) => (a.admitted ? 'served' : a.reason));
      expect(outcomes.filter((o) => o === 'served')).toHaveLength(free.perMinute);
      // The refusal past the threshold bans the key; those refused after it are told of the ban.
      expect(outcomes.filter((o) => o === 'RATE_LIMITED')).toHaveLength(banThreshold(free));
      expect(outcomes.filter((o) => o === 'KEY_TEMPORARILY_BANNED')).toHaveLength(BEYOND);
      const stored = await item(key);
      expect(stored).toMatchObject({ day: free.perMinute, inMinute: free.perMinute });
      expect(stored.bannedUntil).toBeDefined();
      expectConsistentHeaders(admissions, free, stored, nowMs + 999);
    },
    BURST_TIMEOUT_MS,
  );

  test(
    'the day window binding under parallel requests serves exactly its limit',
    async () => {
      const key = newKey();
      const limits = { perMinute: 100, perDay: 7 };
      const admissions = await parallel(key, limits, 25);
      expect(admissions.filter((a) => a.admitted)).toHaveLength(7);
      expect(admissions.every((a) => a.admitted || a.reason === 'QUOTA_EXCEEDED')).toBe(true);
      expectConsistentHeaders(admissions, limits, await item(key), nowMs);
    },
    BURST_TIMEOUT_MS,
  );
});
