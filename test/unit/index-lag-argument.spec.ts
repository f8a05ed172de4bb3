// The timing argument of docs/design.md#the-index-lag-canary, checked on a model of the world: the
// indexes lag by a baseline within the budget, except for an episode of more lag (beyond what the
// canary can read back, too) that starts anywhere between its runs and lasts from a period and its
// lateness (so a probe meets it) to three periods; the canary runs every period a little late, its
// records read by walks a cache later; a replica follows the documented loop every few seconds;
// orders change throughout; each sweep the canary asks for is done by the sync watch up to its
// iterator age and timeout later. Whatever the timing:
// - the replica ends equal to the store within indexLagRepairMs of the lag being back, even when
//   each write's lag in the episode is drawn anywhere from half the episode's lag to all of it (so
//   the probe may meet less than other writes get: the sweeps, not the hold, repair those);
// - with the episode's lag common to its writes, no walk vouches for a change still on its way to
//   the index once a probe has met the lag: only the changes that landed before it need the sweeps;
// - every watermark trails its walk's start by at least the settling time.
// Writes land at their stamp here: late landing is the sync watch's own repair
// (test/unit/sync-lateness.spec.ts).
import fc from 'fast-check';
import { indexLagRepairMs, STREAM_MAPPINGS, FUNCTIONS } from '../../lib/contract/deployment';
import { INDEX_CANARY } from '../../lib/contract/index-canary';
import {
  lagHold,
  withMeasurement,
  withProbe,
  type CanaryRecord,
  type LagTiming,
  type RepairWindow,
} from '../../lib/core/sync/index-lag';
import { heldWatermarkMs } from '../../lib/core/sync/watermark';
import { DEPLOYED_LAG_TIMING } from '../support/lag-timing';

const T: LagTiming = DEPLOYED_LAG_TIMING;
const P = T.periodMs;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
/** How long after a sweep is asked for the watch may do it: the stream's wait, then its own timeout. */
const SWEEP_DELAY_MS =
  (STREAM_MAPPINGS['sync-watch'].iteratorAgeAlarmSeconds + FUNCTIONS['sync-watch'].timeoutSeconds) * 1000;

interface Version {
  stamp: number;
  visibleAt: number;
}

interface World {
  /** Each order's versions, oldest first: the table holds the last, an index the last visible. */
  orders: Map<number, Version[]>;
  /** The lag of the `n`th write, landing at `t`. */
  lag: (t: number, n: number) => number;
  writes: number;
}

function write(world: World, id: number, at: number): void {
  const versions = world.orders.get(id) ?? [];
  // An index shows one item's changes in order.
  const visibleAt = Math.max(at + world.lag(at, world.writes++), versions.at(-1)?.visibleAt ?? 0);
  versions.push({ stamp: at, visibleAt });
  world.orders.set(id, versions);
}

/** What an index read at `at` shows of the order. */
const shown = (versions: Version[], at: number) => versions.filter((v) => v.visibleAt <= at).at(-1);

interface Scenario {
  episodeStart: number;
  episodeMs: number;
  episodeLagMs: number;
  baselineLagMs: number;
  /** Each write's share of the episode's lag, in turn (1: every write lags the same). */
  jitter: number[];
  runLateness: number[];
  sweepDelays: number[];
  walkEveryMs: number;
  changes: { id: number; at: number }[];
}

interface Outcome {
  /** From which walk on the replica stayed equal to the store; undefined if it did not end so. */
  equalAfter: number | undefined;
  backAt: number;
  lastChange: number;
  /** Whether every watermark trailed its walk's start by the settling time. */
  settled: boolean;
  /** The first probe over the budget. */
  metAt: number | undefined;
  /** Stamps of changes a walk vouched for that its index did not show yet. */
  vouchedUnseen: number[];
}

function simulate(s: Scenario): Outcome {
  const backAt = s.episodeStart + s.episodeMs;
  const inEpisode = (t: number) => t >= s.episodeStart && t < backAt;
  const world: World = {
    orders: new Map(),
    writes: 0,
    lag: (t, n) => (inEpisode(t) ? Math.round(s.episodeLagMs * (s.jitter[n % s.jitter.length] ?? 1)) : s.baselineLagMs),
  };
  type Event = { at: number; order: number; run: () => void };
  const events: Event[] = [];
  let order = 0;
  const at = (time: number, run: () => void) => events.push({ at: time, order: order++, run });
  const records: { at: number; record: CanaryRecord }[] = [];
  let record: CanaryRecord | undefined;
  let sentinel: Version | undefined;
  let sweeps = 0;
  let metAt: number | undefined;
  const vouchedUnseen: number[] = [];
  const sweep = (window: RepairWindow, asked: number) => {
    const delay = s.sweepDelays[sweeps++ % s.sweepDelays.length] ?? 0;
    at(asked + delay, () => {
      const now = asked + delay;
      for (const [id, versions] of world.orders) {
        const seen = shown(versions, now);
        // The re-stamp's condition: only while the order is still as the index showed it.
        if (seen && seen === versions.at(-1) && seen.stamp >= window.fromMs && seen.stamp <= window.toMs)
          write(world, id, now);
      }
    });
  };
  const publish = (time: number, next: CanaryRecord, repair: RepairWindow | undefined) => {
    record = next;
    records.push({ at: time, record: next });
    if (repair) sweep(repair, time);
  };
  s.runLateness.forEach((late, k) => {
    const probe = T0 + k * P + late;
    at(probe, () => {
      const started = withProbe(record, probe, T);
      publish(probe, started.record, started.repair);
      sentinel = {
        stamp: probe,
        visibleAt: Math.max(probe + world.lag(probe, world.writes++), sentinel?.visibleAt ?? 0),
      };
      const lag = sentinel.visibleAt - probe;
      if (lag > T.indexLagMs) metAt ??= probe;
      const measurement =
        lag <= T.readBackMs
          ? { probeMs: probe, lagMs: lag, seen: true }
          : { probeMs: probe, lagMs: T.readBackMs, seen: false };
      const measuredAt = probe + measurement.lagMs;
      at(measuredAt, () => {
        if (record?.probeMs !== probe) return;
        const done = withMeasurement(record, measurement, T, INDEX_CANARY.keptMeasurements);
        publish(measuredAt, done.record, done.repair);
      });
    });
  });
  for (const change of s.changes) at(change.at, () => write(world, change.id, change.at));

  const replica = new Map<number, number>();
  let watermark = 0;
  let settled = true;
  let equalAfter: number | undefined;
  const end = T0 + s.runLateness.length * P;
  const lastChange = Math.max(...s.changes.map((c) => c.at));
  for (let walk = T0; walk < end; walk += s.walkEveryMs) {
    at(walk, () => {
      // A walk's function may hold a record read up to its cache time ago.
      const read = records.filter((r) => r.at <= walk - INDEX_CANARY.readerCacheMs).at(-1)?.record;
      const hold = lagHold(read, { startedMs: walk, nowMs: walk }, T);
      for (const [id, versions] of world.orders) {
        const seen = shown(versions, walk);
        if (seen && seen.stamp >= watermark && seen.stamp > (replica.get(id) ?? -1)) replica.set(id, seen.stamp);
      }
      const next = heldWatermarkMs(
        { startedMs: walk, settleMs: T.settleMs, indexLagMs: T.indexLagMs, sinceMs: watermark },
        hold,
      );
      if (next > walk - T.settleMs) settled = false;
      for (const versions of world.orders.values()) {
        const last = versions.at(-1);
        if (last && last.visibleAt > walk && last.stamp >= watermark && last.stamp <= next)
          vouchedUnseen.push(last.stamp);
      }
      watermark = next;
      const equal = [...world.orders].every(([id, versions]) => replica.get(id) === versions.at(-1)?.stamp);
      if (!equal) equalAfter = undefined;
      else equalAfter ??= walk;
    });
  }
  events.sort((a, b) => a.at - b.at || a.order - b.order);
  // Events scheduled while running land in order: run them as a queue kept sorted.
  while (events.length > 0) {
    const next = events.shift() as Event;
    next.run();
    events.sort((a, b) => a.at - b.at || a.order - b.order);
  }
  return { equalAfter, backAt, lastChange, settled, metAt, vouchedUnseen };
}

const RUNS = 16;
const scenarios = fc
  .record({
    episodeOffset: fc.integer({ min: 0, max: 3 * P }),
    episodeMs: fc.integer({ min: P + T.lateAllowanceMs, max: 3 * P }),
    episodeLagMs: fc.integer({ min: T.indexLagMs + 1, max: 2 * T.readBackMs }),
    baselineLagMs: fc.integer({ min: 0, max: T.indexLagMs }),
    jitter: fc.array(fc.double({ min: 0.5, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }),
    runLateness: fc.array(fc.integer({ min: 0, max: T.lateAllowanceMs / 2 }), { minLength: RUNS, maxLength: RUNS }),
    sweepDelays: fc.array(fc.integer({ min: 0, max: SWEEP_DELAY_MS }), { minLength: 1, maxLength: 4 }),
    walkEveryMs: fc.constantFrom(1_000, 5_000, 13_000),
    changes: fc.array(fc.record({ id: fc.integer({ min: 1, max: 30 }), offset: fc.integer({ min: 0, max: 6 * P }) }), {
      minLength: 1,
      maxLength: 120,
    }),
  })
  .map((r): Scenario => ({
    ...r,
    episodeStart: T0 + 2 * P + r.episodeOffset,
    changes: r.changes.map((c) => ({ id: c.id, at: T0 + 2 * P + c.offset })),
  }));

test(`a replica ends equal to the store within ${indexLagRepairMs() / 1000} s of the lag being back, whatever the timing`, () => {
  fc.assert(
    fc.property(scenarios, (s) => {
      const { equalAfter, backAt, lastChange, settled } = simulate(s);
      expect(settled).toBe(true);
      const due = Math.max(backAt + indexLagRepairMs(), lastChange + indexLagRepairMs());
      expect(equalAfter).toBeDefined();
      expect(equalAfter ?? Infinity).toBeLessThanOrEqual(due + s.walkEveryMs);
    }),
    { numRuns: 300 },
  );
});

test('once a probe has met the lag, walks hold back far enough to vouch for no change still on its way', () => {
  fc.assert(
    fc.property(scenarios, (s) => {
      const { metAt, vouchedUnseen, settled } = simulate({ ...s, jitter: [1] });
      expect(settled).toBe(true);
      expect(metAt).toBeDefined();
      expect(vouchedUnseen.filter((stamp) => stamp >= (metAt ?? 0))).toEqual([]);
    }),
    { numRuns: 300 },
  );
});

test('without the hold and the sweeps, the same world loses changes', () => {
  // The lag of the issue: 30 s for a minute, every write; walks every 5 s that trust the budget.
  const lost = (() => {
    const s: Scenario = {
      episodeStart: T0 + 2 * P + 20_000,
      episodeMs: P,
      episodeLagMs: 30_000,
      baselineLagMs: 500,
      jitter: [1],
      runLateness: Array.from({ length: RUNS }, () => 0),
      sweepDelays: [0],
      walkEveryMs: 5_000,
      changes: Array.from({ length: 20 }, (_, i) => ({ id: i + 1, at: T0 + 2 * P + 20_000 + i * 3_000 })),
    };
    const world: World = {
      orders: new Map(),
      writes: 0,
      lag: (t) => (t >= s.episodeStart && t < s.episodeStart + s.episodeMs ? 30_000 : 500),
    };
    for (const c of s.changes) write(world, c.id, c.at);
    const replica = new Map<number, number>();
    let watermark = 0;
    for (let walk = T0; walk < T0 + RUNS * P; walk += s.walkEveryMs) {
      for (const [id, versions] of world.orders) {
        const seen = shown(versions, walk);
        if (seen && seen.stamp >= watermark) replica.set(id, seen.stamp);
      }
      watermark = walk - T.settleMs;
    }
    return [...world.orders.keys()].filter((id) => !replica.has(id)).length;
  })();
  expect(lost).toBeGreaterThan(0);
});
