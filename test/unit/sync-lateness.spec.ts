// The change stream's rules: how late a change landed against its stamp, to the stream's one-second
// resolution, and which changes a walk could have missed (re-stamped) or were stamped ahead of AWS.
import { settleMs, SYNC_TIMING } from '../../lib/contract/sync';
import {
  judgeLanding,
  landingAllowanceMs,
  latenessAtMostMs,
  leadAtLeastMs,
  STREAM_TIME_RESOLUTION_MS,
  type WatchBounds,
} from '../../lib/core/sync/lateness';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';

const SECOND = 1_780_000_000;
const A = SECOND * 1000;
const DEPLOYED: WatchBounds = {
  settleMs: settleMs(SYNC_TIMING, REQUEST_TIMEOUT_MS),
  clockErrorMs: SYNC_TIMING.clockErrorMs,
  indexLagMs: SYNC_TIMING.indexLagMs,
};
const ALLOWANCE = landingAllowanceMs(DEPLOYED);
const LAST_MS = STREAM_TIME_RESOLUTION_MS - 1;

test('the landing allowance is what the settling time leaves once the index lag and the walk clock are taken out', () => {
  expect(ALLOWANCE).toBe(SYNC_TIMING.clockErrorMs + REQUEST_TIMEOUT_MS + SYNC_TIMING.unansweredLandingMs);
  // A measured index lag beyond the declared one leaves less for landing: more changes are re-stamped.
  expect(landingAllowanceMs({ ...DEPLOYED, indexLagMs: SYNC_TIMING.indexLagMs + 4_000 })).toBe(ALLOWANCE - 4_000);
});

test.each([
  // [what, stamp, lateness at most, lead at least]
  ['stamped at the start of the second it landed in', A, LAST_MS, -LAST_MS],
  ['stamped at its last millisecond', A + LAST_MS, 0, 0],
  ['stamped 20 s before its second', A - 20_000, 20_000 + LAST_MS, -(20_000 + LAST_MS)],
  ['stamped 3 s after its second began', A + 3_000, LAST_MS - 3_000, 3_000 - LAST_MS],
])('a change %s could have landed so late, and be so far ahead', (_what, stampMs, lateness, lead) => {
  const change = { stampMs, createdSeconds: SECOND };
  expect(latenessAtMostMs(change)).toBe(lateness);
  expect(leadAtLeastMs(change)).toBe(lead);
});

describe('judgeLanding, with the deployed bounds', () => {
  test.each([
    ['a prompt write, stamped 20 ms before it landed', 'on-time', A + 500 - 20],
    ['one stamped early in its second: the rounding alone', 'on-time', A],
    ['one whose latest possible landing is exactly the allowance', 'on-time', A + LAST_MS - ALLOWANCE],
    ['one millisecond more', 'late', A + LAST_MS - ALLOWANCE - 1],
    ['a write landing 20 s after its stamp', 'late', A - 20_000],
    ['a stamp from a clock 10 minutes slow', 'late', A - 600_000],
    [
      'a stamp within the clock allowance ahead of the second it landed in',
      'on-time',
      A + LAST_MS + SYNC_TIMING.clockErrorMs,
    ],
    ['one millisecond more ahead', 'ahead', A + LAST_MS + SYNC_TIMING.clockErrorMs + 1],
    ['a stamp from a clock 10 minutes fast', 'ahead', A + 600_000],
  ] as const)('%s is %s', (_what, expected, stampMs) => {
    expect(judgeLanding({ stampMs, createdSeconds: SECOND }, DEPLOYED)).toBe(expected);
  });

  test('a change that may have landed within its allowance is never called late for the rounding', () => {
    // Landed within 1 s of its stamp, wherever in its second: never re-stamped.
    for (let into = 0; into < STREAM_TIME_RESOLUTION_MS; into += 37)
      expect(judgeLanding({ stampMs: A + into - 1_000, createdSeconds: SECOND }, DEPLOYED)).toBe('on-time');
  });
});
