// The limiter's DynamoDB client when replies come late or never: the server applies a picked call
// and the caller hears a timeout (or nothing for a while). With the limiter's own client (no
// retries, lib/stores/rate-limiter.ts LIMITER_CLIENT) a lost reply uses up at most its one slot;
// with a retrying client, more. The limiter's rules under late, lost and failed writes are unit
// tests over the in-memory store (test/unit/rate-limiter-admit.spec.ts, quota-deadlines.spec.ts),
// and the DynamoDB store's writes are held to the same contract (rate-limiter-store.spec.ts).
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { RateLimiter } from '../../lib/stores/rate-limiter';
import type { Limits } from '../../lib/contract/plans';
import { createTestTables, type TestTables } from '../support/dynamo';
import { counterClient } from '../../lib/root/wiring';
import { lateReplies, type AppliedCall, type LateReply } from '../support/limiter-clients';

let tables: TestTables;
/** Reads the limiter items past the faults. */
let checker: RateLimiter;
const clients: DynamoDBDocumentClient[] = [];
let nowMs: number;
const clock = () => nowMs;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  tables = await createTestTables();
  checker = tables.stores({ now: clock }).limiter;
});
afterAll(async () => {
  for (const doc of clients) doc.destroy();
  await tables.drop();
});

/** The root's limiter, on its own client (no retries, a patient timeout), its calls picked for faults by `pick`. */
function limiterWithFaults(pick: Parameters<typeof lateReplies>[1]) {
  const { limiter, wiring } = tables.stores({ now: clock, requestTimeoutMs: 60_000 });
  return { limiter, faults: lateReplies(counterClient(wiring), pick) };
}

/** A lost reply of an admitting write used up a slot: its answer held the new day count. */
const slotsUsed = (lost: AppliedCall[]) => lost.filter((call) => call.attributes?.day !== undefined).length;

type Outcome = 'served' | 'refused' | 'failed';

/** One request: what its caller saw, and how many slots its lost replies used up. */
interface Request {
  outcome: Outcome;
  slotsLost: number;
}

/**
 * Key with 2/min and 3/day, 3 requests a minute for 4 minutes of each of 5 days, one at a time, so
 * each lost reply belongs to the request in flight. Returns per day each minute's requests and the
 * day count stored afterwards.
 */
async function manyWindows(limiter: RateLimiter, lost: () => AppliedCall[]) {
  const keyId = `key-${randomUUID()}`;
  const limits: Limits = { perMinute: 2, perDay: 3 };
  const days: { minutes: Request[][]; stored: number | undefined }[] = [];
  for (let day = 0; day < 5; day++) {
    const minutes: Request[][] = [];
    for (let minute = 0; minute < 4; minute++) {
      nowMs = Date.parse('2026-11-22T10:00:15.000Z') + day * DAY_MS + minute * 60_000;
      const requests: Request[] = [];
      for (let i = 0; i < 3; i++) {
        const before = lost().length;
        const outcome: Outcome = await limiter.admit(keyId, limits).then(
          (a) => (a.admitted ? 'served' : 'refused'),
          () => 'failed',
        );
        requests.push({ outcome, slotsLost: slotsUsed(lost().slice(before)) });
      }
      minutes.push(requests);
    }
    days.push({ minutes, stored: (await checker.read(keyId, nowMs))?.day });
  }
  return days;
}

const served = (requests: Request[]) => requests.filter((r) => r.outcome === 'served').length;

const pattern = (n: number): LateReply | undefined =>
  n % 3 === 0
    ? { kind: 'timeout-after-write' }
    : n % 7 === 0
      ? { kind: 'timeout-before-write' }
      : n % 5 === 0
        ? { kind: 'late', ms: 30 }
        : undefined;

test('over many windows with lost and late replies, no limit is exceeded and the count is served + slots used by lost replies', async () => {
  const { limiter, faults } = limiterWithFaults(pattern);
  const days = await manyWindows(limiter, () => faults.lost);
  for (const day of days) {
    const requests = day.minutes.flat();
    for (const minute of day.minutes) expect(served(minute)).toBeLessThanOrEqual(2);
    expect(served(requests)).toBeLessThanOrEqual(3);
    expect(day.stored).toBe(served(requests) + requests.reduce((sum, r) => sum + r.slotsLost, 0));
    // A request whose counter write was lost used up at most that one slot, and was not served.
    for (const r of requests) if (r.slotsLost > 0) expect(r).toEqual({ outcome: 'failed', slotsLost: 1 });
  }
  // The faults did hit admitting writes, and requests were still served.
  const all = days.flatMap((d) => d.minutes.flat());
  expect(all.some((r) => r.slotsLost > 0)).toBe(true);
  expect(served(all)).toBeGreaterThan(0);
});

test('the same faults against a client that retries: a request uses up more than its one slot, which is why the limiter sends without retries', async () => {
  // Built by hand on purpose: a limiter on a retrying client, which the composition root never gives it.
  const retrying = createDocumentClient(createDynamoClient({ endpoint: tables.endpoint, requestTimeoutMs: 60_000 }));
  clients.push(retrying);
  // Only first attempts are faulted, as a passing network fault would hit one attempt.
  const faults = lateReplies(retrying, (n, attempt) => (attempt === 1 ? pattern(n) : undefined));
  const limiter = new RateLimiter(retrying, tables.names.rateLimits, clock);
  const days = await manyWindows(limiter, () => faults.lost);
  const requests = days.flatMap((d) => d.minutes.flat());
  expect(requests.some((r) => r.slotsLost > 1 || (r.slotsLost > 0 && r.outcome !== 'failed'))).toBe(true);
});
