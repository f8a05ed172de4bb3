// Where listOrders' measured figures come from: the latest full `npm run bench`, in
// bench/results.json (suite "listOrders at scale"), read here so no figure is copied by hand.
// infra/list-budget.ts checks list-orders' memory and timeout against them.

import results from '../bench/results.json' with { type: 'json' };

export const LISTING_SUITE = 'listOrders at scale';
/** The webhook delivery suite (bench/suites/webhook-delivery.ts), which infra/webhook-cost.ts prices. */
export const WEBHOOK_SUITE = 'webhook delivery';

/** One consumer's batches as the webhook suite measured them (this process's CPU and wall time). */
export interface ConsumerMeasured {
  batches: number;
  /** Changes read (the fan-out) or deliveries handled (the worker). */
  items: number;
  /** Deliveries the fan-out queued; deliveries the worker saw acknowledged. */
  events: number;
  /** Per batch, the mean: this process's CPU and wall time. */
  cpuMsPerBatch: number;
  wallMsPerBatch: number;
  /** Events one consumer handles a second, one batch after another. */
  eventsPerSecond: number;
  batchSize: number;
  memoryMb: number;
}

/** A listing's throughput in one coding: wire bytes per order, and orders per CPU second of the handler. */
export interface CodingFigures {
  bytesPerOrder: number;
  ordersPerCpuSecond: number;
}

export interface ListFigures {
  plain: CodingFigures;
  compressed: CodingFigures;
  /** Where the figures come from. */
  source: string;
}

/** What of a bench run the figures are read from (bench/run.ts writes more). */
export interface MeasuredRun {
  mode: string;
  startedAt: string;
  machine: { cpus: number; cpu: string };
  loadAverage: { start?: number };
  suites: {
    [LISTING_SUITE]?: {
      handlers: readonly {
        orders: number;
        coding: string;
        deployed: boolean;
        nodeFlags: readonly string[];
        valid: boolean;
        bytes: number;
        cpuMs: number;
      }[];
    };
    [WEBHOOK_SUITE]?: { endpoints: number; fanout: ConsumerMeasured; worker: ConsumerMeasured };
  };
}

/**
 * The largest valid listing of a full run, as deployed, uncompressed and gzip: bytes an order and
 * orders per CPU second of the handler's process. A quick run's small listings would understate
 * the steady state, so they are refused.
 */
export function measuredFigures(run: MeasuredRun): ListFigures {
  const fix = 'run `npm run bench` (a full run) to measure them';
  if (run.mode !== 'full') throw new Error(`bench/results.json holds a ${run.mode} run; ${fix}`);
  const listings = (run.suites[LISTING_SUITE]?.handlers ?? []).filter((h) => h.deployed && h.valid);
  const orders = Math.max(0, ...listings.map((h) => h.orders));
  const at = (coding: string): CodingFigures => {
    const h = listings.find((l) => l.orders === orders && l.coding === coding);
    if (!h) throw new Error(`bench/results.json has no valid ${coding} listing as deployed; ${fix}`);
    return { bytesPerOrder: h.bytes / h.orders, ordersPerCpuSecond: h.orders / (h.cpuMs / 1000) };
  };
  const [plain, compressed] = [at('identity'), at('gzip')];
  const flags = listings.find((h) => h.orders === orders)?.nodeFlags.join(' ');
  const { machine, loadAverage } = run;
  return {
    plain,
    compressed,
    source: `bench "${LISTING_SUITE}", ${orders.toLocaleString('en-US')} orders, as deployed (${flags}), ${run.startedAt.slice(0, 10)}, ${machine.cpus} vCPU ${machine.cpu}, load average ${loadAverage.start ?? '?'}`,
  };
}

export const MEASURED: ListFigures = measuredFigures(results);
