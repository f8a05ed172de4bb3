// The pieces exact sync is made of: a new stamp per attempt and at most STAMPED_ATTEMPTS of them
// (the rules themselves: stamp-rules.spec.ts), the clock checked against AWS's, and the walk's watermark.
import { SYNC_TIMING, settleMs } from '../../lib/contract/sync';
import { walkWatermark } from '../../lib/core/sync/watermark';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { offsetWithin, replyBound } from '../../lib/stores/aws-clock';
import { STAMPED_ATTEMPTS } from '../../lib/core/sync/stamps';
import { stampedWrite, StampedWriteContendedError, type StampedAttempt } from '../../lib/stores/stamped-write';
import { VirtualTime } from '../support/virtual-time';

const T = Date.UTC(2026, 10, 22, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const timeout = () => Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });

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

  test("another writer's later stamp: stamped after it and tried again, within the same attempts", async () => {
    const seen: StampedAttempt[] = [];
    const written = await stampedWrite(
      { now: () => T },
      async (attempt) => {
        seen.push(attempt);
        if (seen.length === 1) throw timeout();
        return seen.length;
      },
      { judge: async (n) => (n === 2 ? { stampedLater: iso(T + 60_000) } : { result: `written by ${n}` }) },
    );
    expect(written).toBe('written by 3');
    expect(seen.map((a) => a.stamp)).toEqual([iso(T), iso(T + 1), iso(T + 60_001)]);
    // The timed-out first attempt may land: its stamp stays accepted; the answered second was not applied.
    expect(seen.map((a) => a.earlier)).toEqual([[], [iso(T)], [iso(T)]]);
  });

  test('an item that keeps changing: STAMPED_ATTEMPTS attempts in all, then StampedWriteContendedError (503)', async () => {
    let attempts = 0;
    let updatedAt = T;
    const written = stampedWrite(
      { now: () => T },
      async () => {
        attempts++;
        if (attempts % 2 === 0) throw timeout();
      },
      { judge: async () => ({ stampedLater: iso((updatedAt += 1_000)) }) },
    );
    await expect(written).rejects.toBeInstanceOf(StampedWriteContendedError);
    await expect(written).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(attempts).toBe(STAMPED_ATTEMPTS);
  });

  test('the backoff between attempts runs on the injected timers', async () => {
    const time = new VirtualTime(T);
    const sentAt: number[] = [];
    await time.run(
      stampedWrite(
        { now: time.now },
        async () => {
          sentAt.push(time.now());
          if (sentAt.length < STAMPED_ATTEMPTS) throw timeout();
        },
        { timer: { timeoutMs: REQUEST_TIMEOUT_MS, timers: time.asTimers }, random: () => 0.5 },
      ),
    );
    // 50 ms × 2^(n-1) × 0.5: 25 ms, then 50 ms, on the virtual clock (a real timer would leave it at T).
    expect(sentAt).toEqual([T, T + 25, T + 75]);
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
