// A tool's AWS time (tools/shared/aws-time.ts) on a virtual clock: a simulated DynamoDB whose
// replies carry AWS's time cut to the second, AWS's clock any distance from this machine's, replies
// of any speed. The time a check gives is within what it claims, and within half the allowance for
// stamps; where the replies cannot bound it within the allowance, it refuses in one line.
import fc from 'fast-check';
import { replyBound } from '../../lib/stores/aws-clock';
import { CheckedAwsClock, ClockRefused, TOOL_CLOCK } from '../../tools/shared/aws-time';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** AWS's time when this machine's monotonic clock reads 0, were the machine's clock right. */
const T = Date.UTC(2026, 10, 22, 12, 0, 0);

interface Simulated {
  clock: CheckedAwsClock;
  /** AWS's time now. */
  aws(): number;
  /** Moves this machine's monotonic clock on (idle time). */
  idle(ms: number): void;
  probes(): number;
}

/**
 * AWS's clock `offsetMs` ahead of this machine's monotonic one; each probe's reply takes `replyMs`
 * (half each way, AWS reading its clock in the middle) and carries `date(aws)` as its Date header.
 */
function simulated(
  offsetMs: number,
  replyMs: number,
  date: (aws: number) => string = (aws) => new Date(Math.floor(aws / 1_000) * 1_000).toUTCString(),
): Simulated {
  let t = 5_000;
  let probes = 0;
  const time = {
    elapsed: () => t,
    sleep: async (ms: number) => {
      t += Math.max(0, ms);
    },
  };
  const clock: CheckedAwsClock = new CheckedAwsClock(async () => {
    probes++;
    const sent = t;
    t += replyMs / 2;
    const header = date(T + t + offsetMs);
    t += replyMs / 2;
    const bound = replyBound(header, sent, t);
    if (bound) clock.learn(bound, t);
  }, time);
  return {
    clock,
    aws: () => T + t + offsetMs,
    idle: (ms) => {
      t += ms;
    },
    probes: () => probes,
  };
}

test('the time a check gives is within what it claims, and within half the allowance for stamps, however far off this machine is', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.constantFrom(-10 * MINUTE, 10 * MINUTE, -6.5 * HOUR, 6.5 * HOUR, 0),
        fc.double({ min: -7 * 24 * HOUR, max: 7 * 24 * HOUR, noNaN: true }),
      ),
      fc.double({ min: 0, max: 999, noNaN: true }),
      fc.integer({ min: 1, max: 400 }),
      async (offset, phase, replyMs) => {
        const world = simulated(offset + phase, replyMs);
        await world.clock.check(TOOL_CLOCK.stampMs);
        const error = Math.abs(world.clock.now() - world.aws());
        expect(world.clock.uncertaintyMs()).toBeLessThanOrEqual(TOOL_CLOCK.stampMs);
        // now() is floored to the millisecond.
        expect(error).toBeLessThanOrEqual(world.clock.uncertaintyMs() + 1);
        expect(world.probes()).toBeLessThanOrEqual(TOOL_CLOCK.probes);
      },
    ),
    { numRuns: 300 },
  );
});

test('one reply is enough for a revocation or a window (within the allowance); a stamp waits for a second, timed across a tick', async () => {
  const world = simulated(-10 * MINUTE + 321, 40);
  expect(Math.abs((await world.clock.checkedNow()) - world.aws())).toBeLessThanOrEqual(TOOL_CLOCK.allowanceMs);
  expect(world.probes()).toBe(1);
  await world.clock.check(TOOL_CLOCK.stampMs);
  expect(world.probes()).toBe(2);
  expect(Math.abs(world.clock.now() - world.aws())).toBeLessThanOrEqual(TOOL_CLOCK.stampMs);
});

test('nothing is decided by the clock before it is checked', () => {
  expect(() => simulated(0, 10).clock.now()).toThrow(ClockRefused);
});

test('replies too slow to bound the offset within the allowance: a one-line refusal after one probe', async () => {
  const world = simulated(6.5 * HOUR, 2_500);
  const refused = world.clock.check(TOOL_CLOCK.stampMs);
  await expect(refused).rejects.toThrow(ClockRefused);
  await expect(refused).rejects.toThrow(/^[^\n]*replies took 2\.5 s or more[^\n]*$/);
  expect(world.probes()).toBe(1);
  expect(() => world.clock.now()).toThrow(ClockRefused);
});

test('replies a little slower than the allowance are narrowed to within it by more probes', async () => {
  const world = simulated(-10 * MINUTE + 700, 1_500);
  await world.clock.check(TOOL_CLOCK.stampMs);
  expect(world.probes()).toBeGreaterThan(1);
  expect(world.clock.uncertaintyMs()).toBeLessThanOrEqual(TOOL_CLOCK.allowanceMs);
  expect(Math.abs(world.clock.now() - world.aws())).toBeLessThanOrEqual(world.clock.uncertaintyMs() + 1);
});

test('replies without a usable Date: a one-line refusal', async () => {
  const world = simulated(0, 10, () => 'Invalid Date');
  await expect(world.clock.checkedNow()).rejects.toThrow(/^[^\n]*no usable Date header$/);
  expect(world.probes()).toBe(1);
});

test('a probe that fails with no reply (DynamoDB unreachable) fails the check with its own error', async () => {
  const unreachable = new CheckedAwsClock(() => Promise.reject(new Error('connect ECONNREFUSED')));
  await expect(unreachable.check()).rejects.toThrow('connect ECONNREFUSED');
});

test("a probe refused with a reply (a signature that AWS finds expired) still tells AWS's time", async () => {
  let t = 0;
  const offset = T + 6.5 * HOUR;
  const clock: CheckedAwsClock = new CheckedAwsClock(
    async () => {
      const bound = replyBound(new Date(Math.floor((t + 10 + offset) / 1_000) * 1_000).toUTCString(), t, t + 20);
      if (bound) clock.learn(bound, (t += 20));
      throw new Error('Signature expired');
    },
    { elapsed: () => t, sleep: async (ms) => void (t += Math.max(0, ms)) },
  );
  await clock.check(TOOL_CLOCK.stampMs);
  expect(Math.abs(clock.now() - (t + offset))).toBeLessThanOrEqual(TOOL_CLOCK.stampMs);
});

test('what is known widens with the drift this machine may have: a long idle is checked again, and not used unchecked', async () => {
  const world = simulated(10 * MINUTE, 20);
  await world.clock.check(TOOL_CLOCK.stampMs);
  const probes = world.probes();
  world.idle(1_000);
  await world.clock.check(TOOL_CLOCK.stampMs);
  expect(world.probes()).toBe(probes);
  // Past the allowance's worth of drift (1 s at 500 ppm: about 33 minutes).
  world.idle(TOOL_CLOCK.allowanceMs / TOOL_CLOCK.drift);
  expect(() => world.clock.now()).toThrow(ClockRefused);
  await world.clock.check(TOOL_CLOCK.stampMs);
  expect(world.probes()).toBeGreaterThan(probes);
  expect(Math.abs(world.clock.now() - world.aws())).toBeLessThanOrEqual(TOOL_CLOCK.stampMs);
});
