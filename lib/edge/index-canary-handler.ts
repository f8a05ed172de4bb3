// The index-lag canary (functions/index-canary.ts), run every minute by a schedule: it stamps a new
// probe on the orders table's sentinel, reads it back through each index of the table (eventually
// consistent, as every index read is) until each shows it or the read-back time is over, publishes
// each index's lag (EMF, IndexLag) and keeps the measurement on the sentinel, where the walks read
// it to hold their watermark back (docs/design.md#the-index-lag-canary). When the lag is back within
// the budget after an episode beyond it, the run asks the sync watch for the episode's first sweep,
// and the next run for its second (lib/core/sync/index-lag.ts). Its calls carry the invocation's
// deadline: none is sent after it has given up.
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import { withinInvocation, writesEndBy, type Deadline } from '../commons/deadline';
import { logger } from '../commons/logger';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { INDEX_CANARY } from '../contract/index-canary';
import { SYNC_TIMING } from '../contract/sync';
import { ORDER_INDEXES } from '../contract/tables';
import {
  overBudget,
  withMeasurement,
  withProbe,
  type LagMeasurement,
  type LagTiming,
  type RepairWindow,
} from '../core/sync/index-lag';
import type { IndexCanaryStore } from '../stores/index-canary';
import { businessMetrics } from './metrics';

export interface IndexCanaryDeps {
  canary: Pick<IndexCanaryStore, 'read' | 'writeProbe' | 'writeRecord' | 'indexShows'>;
  /** The probe's clock: AWS's, as the writers' stamps are (lib/stores/aws-clock.ts). */
  now: () => number;
  timing: LagTiming;
  /** The deadline's timers; the real ones unless a test runs on a virtual clock. */
  timers?: Timers;
  /** Waits between two reads of the probe: on the timers, or the local schedule's virtual clock. */
  sleep?: (ms: number) => Promise<void>;
  /** How long after it ended an unanswered write may still land (SYNC_TIMING.unansweredLandingMs by default). */
  landingMs?: number;
  /** The per-attempt timeout its writes are cut at: the read-back leaves room for the record's write. */
  writeMs?: number;
}

/** What one run came to. */
export type CanaryRun =
  | { kind: 'overtaken' }
  | { kind: 'measured'; measurement: LagMeasurement; lagByIndex: Record<string, number>; repairs: RepairWindow[] };

/**
 * Reads the probe back until every index shows it, its read-back time is over, or the run must
 * write its record: each index's lag, or for one that never showed it, how long it was read for.
 */
async function readBack(
  deps: IndexCanaryDeps,
  probeMs: number,
  deadline: Deadline | undefined,
): Promise<{ lagByIndex: Record<string, number>; seen: boolean }> {
  const timers = deps.timers ?? REAL_TIMERS;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => timers.after(ms, resolve)));
  const reserveMs = (deps.writeMs ?? 0) + INDEX_CANARY.pollMs;
  const lagByIndex: Record<string, number> = {};
  const indexes = Object.values(ORDER_INDEXES);
  for (;;) {
    for (const index of indexes) {
      if (lagByIndex[index.name] === undefined && (await deps.canary.indexShows(index, probeMs, deadline)))
        lagByIndex[index.name] = deps.now() - probeMs;
    }
    const unseen = indexes.filter((index) => lagByIndex[index.name] === undefined);
    if (unseen.length === 0) return { lagByIndex, seen: true };
    const elapsed = deps.now() - probeMs;
    const timeLeft = deadline ? writesEndBy(deadline) - deadline.timers.now() : Infinity;
    if (elapsed >= deps.timing.readBackMs || timeLeft < reserveMs) {
      for (const index of unseen) lagByIndex[index.name] = elapsed;
      return { lagByIndex, seen: false };
    }
    await sleep(INDEX_CANARY.pollMs);
  }
}

/** One run: the probe, its read-back, the record and the sweeps it asks for. */
export async function runCanary(deps: IndexCanaryDeps, deadline?: Deadline): Promise<CanaryRun> {
  const previous = await deps.canary.read(deadline);
  const probeMs = deps.now();
  const started = withProbe(previous, probeMs, deps.timing);
  if (!(await deps.canary.writeProbe(started.record, previous?.probeMs, started.repair, deadline)))
    return { kind: 'overtaken' };
  const { lagByIndex, seen } = await readBack(deps, probeMs, deadline);
  const measurement = { probeMs, lagMs: Math.max(0, ...Object.values(lagByIndex)), seen };
  const done = withMeasurement(started.record, measurement, deps.timing, INDEX_CANARY.keptMeasurements);
  await deps.canary.writeRecord(done.record, done.repair, deadline);
  return {
    kind: 'measured',
    measurement,
    lagByIndex,
    repairs: [started.repair, done.repair].filter((repair) => repair !== undefined),
  };
}

export type IndexCanaryHandler = (event: unknown, context: Context) => Promise<void>;

/** The scheduled function: one run within the invocation's deadline, its lags published and logged. */
export function makeIndexCanaryHandler(deps: IndexCanaryDeps): IndexCanaryHandler {
  const timers = deps.timers ?? REAL_TIMERS;
  const landingMs = deps.landingMs ?? SYNC_TIMING.unansweredLandingMs;
  return middy<unknown, void, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler((_event, context) =>
      withinInvocation(context.getRemainingTimeInMillis?.(), timers, landingMs, async (deadline) => {
        const run = await runCanary(deps, deadline);
        if (run.kind === 'overtaken') {
          logger.info('index-lag canary: another run wrote a later probe; this one measures nothing');
          return;
        }
        businessMetrics.indexLag(run.lagByIndex);
        const facts = { probe: new Date(run.measurement.probeMs).toISOString(), ...run.lagByIndex };
        if (overBudget(run.measurement, deps.timing))
          logger.warn(
            run.measurement.seen
              ? 'index lag over the budget: walks hold their watermark back'
              : 'index lag beyond what the canary reads back: walks vouch for nothing past the last probe seen',
            { ...facts, budgetMs: deps.timing.indexLagMs },
          );
        else logger.info('index lag measured', facts);
        for (const repair of run.repairs)
          logger.warn('index lag back within the budget: sweep asked of the sync watch', { ...repair });
      }),
    );
}
