// The pieces exact sync is made of, as pure functions: stamps strictly later than the order's
// updatedAt, a new stamp per attempt, the clock checked against AWS's, and the walk's watermark.
import { SYNC_TIMING, settleMs } from '../../lib/contract/sync';
import { walkWatermark } from '../../lib/core/sync/watermark';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { offsetWithin, replyBound } from '../../lib/stores/aws-clock';
import { STAMPED_ATTEMPTS, stampAfter, stampedWrite, type StampedAttempt } from '../../lib/stores/stamped-write';

const T = Date.UTC(2026, 10, 22, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const timeout = () => Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });

describe('stampAfter', () => {
  test('is now when the order changed earlier, and one millisecond after it when not', () => {
    expect(stampAfter(T, iso(T - 5))).toBe(iso(T));
    expect(stampAfter(T, iso(T))).toBe(iso(T + 1));
    // A writer whose clock was ahead stamped the order in the future: the next stamp still follows it.
    expect(stampAfter(T, iso(T + 60_000))).toBe(iso(T + 60_001));
    expect(stampAfter(T)).toBe(iso(T));
  });
});

describe('stampedWrite', () => {
  test('stamps each attempt anew as it is sent, and tells a retry its own earlier stamps', async () => {
    let now = T;
    const seen: StampedAttempt[] = [];
    const result = await stampedWrite({ now: () => now }, async (attempt) => {
      seen.push(attempt);
      now += 2_000;
      if (seen.length < STAMPED_ATTEMPTS) throw timeout();
      return 'written';
    });
    expect(result).toBe('written');
    expect(seen.map((a) => a.stamp)).toEqual(Array.from({ length: STAMPED_ATTEMPTS }, (_, i) => iso(T + i * 2_000)));
    expect(seen.map((a) => a.earlier)).toEqual(seen.map((_, i) => seen.slice(0, i).map((a) => a.stamp)));
  });

  test('a retry in the same millisecond still stamps later than its earlier attempt', async () => {
    const stamps: string[] = [];
    await stampedWrite({ now: () => T }, async ({ stamp }) => {
      stamps.push(stamp);
      if (stamps.length === 1) throw timeout();
    });
    expect(stamps).toEqual([iso(T), iso(T + 1)]);
  });

  test('stamps later than the updatedAt the write must follow', async () => {
    const stamps: string[] = [];
    await stampedWrite({ now: () => T }, async ({ stamp }) => void stamps.push(stamp), { after: () => iso(T + 10) });
    expect(stamps).toEqual([iso(T + 11)]);
  });

  test('gives up after its attempts with the last failure, and never retries a failure of its own', async () => {
    let attempts = 0;
    await expect(
      stampedWrite({ now: () => T }, async () => {
        attempts++;
        throw timeout();
      }),
    ).rejects.toThrow('socket hang up');
    expect(attempts).toBe(STAMPED_ATTEMPTS);
    attempts = 0;
    await expect(
      stampedWrite({ now: () => T }, async () => {
        attempts++;
        throw new Error('a bug');
      }),
    ).rejects.toThrow('a bug');
    expect(attempts).toBe(1);
  });
});

describe('the clock checked against AWS', () => {
  // A reply's Date header (whole seconds) sent at `sent` and received 40 ms later, on a local clock `skew` off AWS's.
  const reply = (awsAt: number, skew: number) => {
    const date = new Date(Math.floor(awsAt / 1000) * 1000).toUTCString();
    return replyBound(date, awsAt + skew - 20, awsAt + skew + 20);
  };
  const bounds = (skew: number) =>
    Array.from({ length: 12 }, (_, i) => reply(T + i * 137, skew)).filter((b) => b !== undefined);

  test('a clock that agrees with AWS is left as it is', () => {
    expect(offsetWithin(bounds(0))).toBe(0);
  });

  test.each([60_000, -60_000, 1_500, -20])('a clock %i ms off is corrected to within the declared error', (skew) => {
    const offset = offsetWithin(bounds(skew));
    expect(Math.abs(offset + skew)).toBeLessThanOrEqual(SYNC_TIMING.clockErrorMs);
  });

  test('replies that disagree (the clock jumped) fall back to the latest one', () => {
    const offset = offsetWithin([...bounds(0), ...bounds(-60_000).slice(-1)]);
    expect(Math.abs(offset - 60_000)).toBeLessThanOrEqual(SYNC_TIMING.clockErrorMs);
  });

  test('no reply yet, or no Date header: no correction', () => {
    expect(offsetWithin([])).toBe(0);
    expect(replyBound('not a date', T, T)).toBeUndefined();
  });
});

describe('walkWatermark', () => {
  const settle = settleMs(SYNC_TIMING, REQUEST_TIMEOUT_MS);

  test('stands the settling time behind the walk start', () => {
    expect(walkWatermark(T, settle)).toBe(iso(T - settle));
  });

  test('covers both clocks, the writer and the index lag', () => {
    expect(settle).toBe(
      2 * SYNC_TIMING.clockErrorMs + REQUEST_TIMEOUT_MS + SYNC_TIMING.unansweredLandingMs + SYNC_TIMING.indexLagMs,
    );
    // A change stamped then is delivered by a walk starting within the freshness the API promises.
    expect(settle).toBeLessThan(SYNC_TIMING.freshnessMs);
  });
});
