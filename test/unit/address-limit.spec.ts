// The web ACL's limit per client address (lib/contract/address-limit.ts) and the local gateway's
// emulation of WAF's rate-based rule (tools/local/address-limit.ts), on a clock moved by hand: the
// declared limit never blocks what the plans let keys send, a flood is blocked from WAF's next
// check on, and let go only once a check finds its window back under the limit.
import fc from 'fast-check';
import {
  ADDRESS_LIMIT,
  ADDRESS_PER_MINUTE_BUDGET,
  ADDRESS_RETRY_AFTER_SECONDS,
  addressLimitProblem,
  legitimateRequestsInWindow,
  WAF_RATE_RULE,
} from '../../lib/contract/address-limit';
import { BAN, PLAN_LIMITS } from '../../lib/contract/plans';
import { AddressRateRule } from '../../tools/local/address-limit';

const MINUTE_MS = 60_000;
const CHECK_MS = WAF_RATE_RULE.delaySeconds * 1000;
/** A check of WAF's (a multiple of its delay), well into the day, and a minute edge too. */
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

function ruleAt(limit = ADDRESS_LIMIT) {
  let now = T0;
  const rule = new AddressRateRule(limit, () => now);
  return {
    rule,
    at: (ms: number) => (now = ms),
    /** Sends `n` requests at `ms` from `address`; how many of them were blocked. */
    send: (ms: number, n: number, address = '192.0.2.1') => {
      now = ms;
      let blocked = 0;
      for (let i = 0; i < n; i++) if (rule.blocks(address)) blocked++;
      return blocked;
    },
  };
}

test('the declared limit is one WAF takes, and what keys of the budget send at most in its window without a ban', () => {
  expect(addressLimitProblem(ADDRESS_LIMIT)).toBeUndefined();
  expect(ADDRESS_LIMIT.limit).toBe(legitimateRequestsInWindow(ADDRESS_PER_MINUTE_BUDGET, ADDRESS_LIMIT.windowSeconds));
  // The budget carries more than one key of the largest fixed plan.
  expect(ADDRESS_PER_MINUTE_BUDGET).toBeGreaterThan(Math.max(...Object.values(PLAN_LIMITS).map((l) => l.perMinute)));
  // A blocked client is told to wait out a whole window and one more check.
  expect(ADDRESS_RETRY_AFTER_SECONDS).toBe(ADDRESS_LIMIT.windowSeconds + WAF_RATE_RULE.delaySeconds);
});

test.each([
  [{ ...ADDRESS_LIMIT, limit: WAF_RATE_RULE.minLimit - 1 }, /whole number from 10/],
  [{ ...ADDRESS_LIMIT, limit: 100.5 }, /whole number/],
  [{ ...ADDRESS_LIMIT, limit: WAF_RATE_RULE.maxLimit + 1 }, /whole number/],
  [{ ...ADDRESS_LIMIT, windowSeconds: 90 }, /one of 60, 120, 300, 600/],
])('%j is not a rule WAF takes', (limit, problem) => {
  expect(addressLimitProblem(limit)).toMatch(problem);
});

describe('keys whose per-minute limits add up to the budget, sending all the plans let them', () => {
  /** Per minute: the limits served and the ban's share refused, bunched as the rule likes least. */
  const perMinute = (1 + BAN.rejectedPerMinuteFactor) * ADDRESS_PER_MINUTE_BUDGET;

  test("a whole minute's worth at :59.9 and the next at :00.0, minute after minute: never blocked", () => {
    const { send } = ruleAt();
    let blocked = 0;
    for (let minute = 1; minute <= 6; minute++) {
      const edge = T0 + minute * MINUTE_MS;
      blocked += send(edge - 100, perMinute) + send(edge, perMinute);
    }
    expect(blocked).toBe(0);
  });

  test('spread any way within each minute: never blocked', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: MINUTE_MS - 1 }), { minLength: 1, maxLength: 20 }), {
          minLength: 2,
          maxLength: 4,
        }),
        (minutes) => {
          const { send } = ruleAt();
          let blocked = 0;
          minutes.forEach((offsets, minute) => {
            // The minute's requests, split among its bursts (their moments ascending).
            const sorted = [...offsets].sort((a, b) => a - b);
            const share = Math.floor(perMinute / sorted.length);
            sorted.forEach((offset, i) => {
              const n = i === sorted.length - 1 ? perMinute - share * (sorted.length - 1) : share;
              blocked += send(T0 + minute * MINUTE_MS + offset, n);
            });
          });
          return blocked === 0;
        },
      ),
      { numRuns: 25 },
    );
  });
});

test("a flood passes until WAF's next check, is blocked from it on, blocked requests counting, and is let go at the first check that finds its window under the limit", () => {
  const { send } = ruleAt();
  const over = ADDRESS_LIMIT.limit + 1;
  // One over the limit, just after a check: nothing is blocked until the next one.
  expect(send(T0 + 1_000, over)).toBe(0);
  expect(send(T0 + CHECK_MS - 1, 5)).toBe(0);
  // From the check on, every request of the address is blocked.
  expect(send(T0 + CHECK_MS, 10)).toBe(10);
  // It keeps sending while blocked: those count, so a check after the first flood left the window
  // still blocks it.
  const blockedFlood = T0 + MINUTE_MS + 10_000;
  expect(send(blockedFlood, over)).toBe(over);
  expect(send(T0 + MINUTE_MS + CHECK_MS, 1)).toBe(1);
  // The first check whose window no longer holds that flood lets the address through again.
  const windowMs = ADDRESS_LIMIT.windowSeconds * 1000;
  const clear = T0 + (Math.floor((blockedFlood - T0 + windowMs) / CHECK_MS) + 1) * CHECK_MS;
  expect(send(clear - 1, 1)).toBe(1);
  expect(send(clear, 1)).toBe(0);
});

test('exactly the limit in a window is not blocked; each address is counted on its own', () => {
  const { send } = ruleAt();
  expect(send(T0 + 1_000, ADDRESS_LIMIT.limit, '192.0.2.1')).toBe(0);
  expect(send(T0 + 2_000, ADDRESS_LIMIT.limit + 1, '192.0.2.2')).toBe(0);
  expect(send(T0 + CHECK_MS, 1, '192.0.2.1')).toBe(0);
  expect(send(T0 + CHECK_MS, 1, '192.0.2.2')).toBe(1);
  expect(send(T0 + CHECK_MS, 1, '192.0.2.3')).toBe(0);
});
