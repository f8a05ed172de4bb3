// The index-lag canary's rules (lib/core/sync/index-lag.ts, lib/core/sync/watermark.ts), table by
// table: what a run records, when an episode opens and ends and what its sweeps cover, how far a walk
// holds its watermark back, and when it vouches for nothing past the last probe seen.
import { INDEX_CANARY } from '../../lib/contract/index-canary';
import {
  canaryRecordOf,
  lagHold,
  repairWindowOf,
  withMeasurement,
  withProbe,
  type CanaryRecord,
  type LagMeasurement,
  type LagTiming,
} from '../../lib/core/sync/index-lag';
import { heldWatermarkMs } from '../../lib/core/sync/watermark';
import { DEPLOYED_LAG_TIMING } from '../support/lag-timing';

const T: LagTiming = DEPLOYED_LAG_TIMING;
const KEPT = INDEX_CANARY.keptMeasurements;
const P = T.periodMs;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const seen = (probeMs: number, lagMs: number): LagMeasurement => ({ probeMs, lagMs, seen: true });
const unseen = (probeMs: number): LagMeasurement => ({ probeMs, lagMs: T.readBackMs, seen: false });
/** A record whose runs measured these, the last probe measured. */
const measured = (...measurements: LagMeasurement[]): CanaryRecord => ({
  probeMs: measurements.at(-1)?.probeMs ?? T0,
  measurements,
});

describe('reading a record back', () => {
  test('a record written by the rules is read as written', () => {
    const record: CanaryRecord = { ...measured(seen(T0, 300), unseen(T0 + P)), episode: { fromMs: T0 } };
    expect(canaryRecordOf(JSON.parse(JSON.stringify(record)))).toEqual(record);
    expect(repairWindowOf({ fromMs: 1, toMs: 2, sweep: 1 })).toEqual({ fromMs: 1, toMs: 2, sweep: 1 });
  });
  test.each([null, 'text', {}, { probeMs: 1 }, { probeMs: 1, measurements: [{ probeMs: 1 }] }])(
    'anything else is no record: %j',
    (value) => {
      expect(canaryRecordOf(value)).toBeUndefined();
    },
  );
  test.each([{}, { fromMs: 2, toMs: 1, sweep: 1 }, { fromMs: 1, toMs: 2 }])('no repair window: %j', (value) => {
    expect(repairWindowOf(value)).toBeUndefined();
  });
});

describe('a run', () => {
  test('a probe keeps the measurements and an open episode', () => {
    expect(withProbe(undefined, T0, T)).toEqual({ record: { probeMs: T0, measurements: [] } });
    const open = { ...measured(seen(T0, 300), seen(T0 + P, 30_000)), episode: { fromMs: T0 } };
    expect(withProbe(open, T0 + 2 * P, T)).toEqual({ record: { ...open, probeMs: T0 + 2 * P } });
  });

  test('within the budget: nothing to repair', () => {
    const { record, repair } = withMeasurement(
      withProbe(measured(seen(T0, 300)), T0 + P, T).record,
      seen(T0 + P, 900),
      T,
      KEPT,
    );
    expect(record).toEqual({ probeMs: T0 + P, measurements: [seen(T0, 300), seen(T0 + P, 900)] });
    expect(repair).toBeUndefined();
  });

  test('over the budget: an episode from the probe before, extended while it lasts', () => {
    const first = withMeasurement({ ...measured(seen(T0, 300)), probeMs: T0 + P }, seen(T0 + P, 30_000), T, KEPT);
    expect(first.record.episode).toEqual({ fromMs: T0 });
    const longer = withMeasurement({ ...first.record, probeMs: T0 + 2 * P }, unseen(T0 + 2 * P), T, KEPT);
    expect(longer.record.episode).toEqual({ fromMs: T0 });
    expect(longer.repair).toBeUndefined();
    // With no probe before it, from a period before.
    expect(withMeasurement({ probeMs: T0, measurements: [] }, seen(T0, 9_000), T, KEPT).record.episode).toEqual({
      fromMs: T0 - P,
    });
  });

  test('back within the budget: the episode ends with its first sweep, and the next run asks for the second', () => {
    const open: CanaryRecord = { ...measured(seen(T0, 300), seen(T0 + P, 30_000)), episode: { fromMs: T0 } };
    const back = withMeasurement({ ...open, probeMs: T0 + 2 * P }, seen(T0 + 2 * P, 400), T, KEPT);
    const window = { fromMs: T0 - T.settleMs, toMs: T0 + 2 * P + T.clockErrorMs };
    expect(back.repair).toEqual({ ...window, sweep: 1 });
    expect(back.record.episode).toEqual({ fromMs: T0, toMs: T0 + 2 * P, sweeps: 1 });
    const next = withProbe(back.record, T0 + 3 * P, T);
    expect(next.repair).toEqual({ ...window, sweep: 2 });
    expect(next.record.episode).toBeUndefined();
    expect(withProbe(next.record, T0 + 4 * P, T).repair).toBeUndefined();
  });

  test('a lag back before the second sweep reopens the episode from its own start', () => {
    const ended: CanaryRecord = {
      ...measured(seen(T0, 300), seen(T0 + P, 30_000), seen(T0 + 2 * P, 400)),
      episode: { fromMs: T0, toMs: T0 + 2 * P, sweeps: 1 },
    };
    const again = withMeasurement({ ...ended, probeMs: T0 + 3 * P }, seen(T0 + 3 * P, 12_000), T, KEPT);
    expect(again.record.episode).toEqual({ fromMs: T0 });
  });

  test('a probe seen bounds an earlier one never seen: an index shows one item in order', () => {
    const { record } = withMeasurement({ probeMs: T0 + P, measurements: [unseen(T0)] }, seen(T0 + P, 2_000), T, KEPT);
    expect(record.measurements).toEqual([seen(T0, P + 2_000), seen(T0 + P, 2_000)]);
  });

  test(`the record keeps the last ${KEPT} measurements`, () => {
    let record: CanaryRecord = { probeMs: T0, measurements: [] };
    for (let i = 0; i < KEPT + 3; i++) record = withMeasurement(record, seen(T0 + i * P, 100 + i), T, KEPT).record;
    expect(record.measurements.map((m) => m.lagMs)).toEqual([3, 4, 5, 6].map((i) => 100 + i));
  });
});

describe("a walk's hold", () => {
  const walk = (nowMs: number, startedMs = nowMs) => ({ startedMs, nowMs });
  const late = T.lateAllowanceMs;

  test.each<[string, CanaryRecord | undefined, ReturnType<typeof walk>, ReturnType<typeof lagHold>]>([
    ['no record: nothing vouched for', undefined, walk(T0), { kind: 'unvouched' }],
    ['no probe seen yet', measured(unseen(T0)), walk(T0 + 1), { kind: 'unvouched' }],
    ['the lag within the budget', measured(seen(T0, 800)), walk(T0 + 1_000), { kind: 'held', holdMs: 0 }],
    [
      '30 s of lag: 25 s beyond the budget',
      measured(seen(T0, 30_000)),
      walk(T0 + 31_000),
      { kind: 'held', holdMs: 25_000 },
    ],
    [
      'a measurement holds walks that started within a period, its lateness and its lag of its probe',
      measured(seen(T0, 30_000), seen(T0 + P, 700)),
      walk(T0 + P + late + 35_000, T0 + P + late + 30_000),
      { kind: 'held', holdMs: 25_000 },
    ],
    [
      'and no later walk',
      measured(seen(T0, 30_000), seen(T0 + P, 700)),
      walk(T0 + P + late + 30_001),
      { kind: 'held', holdMs: 0 },
    ],
    [
      'a probe unseen beyond the budget holds walks back by how long',
      { ...measured(seen(T0, 700)), probeMs: T0 + P },
      walk(T0 + P + 12_000),
      { kind: 'held', holdMs: 12_000 - T.indexLagMs },
    ],
    [
      'a probe unseen within the read-back time: nothing past the last probe seen',
      measured(seen(T0, 700), unseen(T0 + P)),
      walk(T0 + P + T.readBackMs + 1),
      { kind: 'unvouched', vouchedUntilMs: T0 },
    ],
    [
      'a run that never finished reading back: the canary stopped',
      { ...measured(seen(T0, 700)), probeMs: T0 + P },
      walk(T0 + P + T.readBackMs + late + 1),
      { kind: 'unvouched', vouchedUntilMs: T0 },
    ],
    [
      'no probe for a period and its lateness: the canary stopped',
      measured(seen(T0, 700)),
      walk(T0 + P + late + 1),
      { kind: 'unvouched', vouchedUntilMs: T0 },
    ],
  ])('%s', (_name, record, at, hold) => {
    expect(lagHold(record, at, T)).toEqual(hold);
  });

  const heldWalk = { startedMs: T0 + 100_000, settleMs: T.settleMs, indexLagMs: T.indexLagMs };
  test.each<[string, Parameters<typeof heldWatermarkMs>[0], ReturnType<typeof lagHold>, number]>([
    ['held by nothing: the settling time', heldWalk, { kind: 'held', holdMs: 0 }, T0 + 100_000 - T.settleMs],
    ['held 25 s more', heldWalk, { kind: 'held', holdMs: 25_000 }, T0 + 100_000 - T.settleMs - 25_000],
    [
      'unvouched: where the last probe seen leaves it',
      heldWalk,
      { kind: 'unvouched', vouchedUntilMs: T0 },
      T0 - (T.settleMs - T.indexLagMs),
    ],
    [
      "unvouched: the walk's own updatedSince if later (it vouches for nothing new)",
      { ...heldWalk, sinceMs: T0 + 50_000 },
      { kind: 'unvouched', vouchedUntilMs: T0 },
      T0 + 50_000,
    ],
    [
      'unvouched, but never past the settling time',
      { ...heldWalk, sinceMs: T0 + 99_000 },
      { kind: 'unvouched', vouchedUntilMs: T0 },
      T0 + 100_000 - T.settleMs,
    ],
    ['no probe ever seen, no updatedSince: the epoch', heldWalk, { kind: 'unvouched' }, 0],
  ])('the watermark, %s', (_name, held, hold, watermark) => {
    expect(heldWatermarkMs(held, hold)).toBe(watermark);
  });
});
