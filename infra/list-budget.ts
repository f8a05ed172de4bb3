// How many orders one listOrders response can carry on AWS, computed from measured figures and the
// documented limits: the memory and timeout lib/contract/deployment.ts declares for list-orders are
// what it derives (test/unit/list-budget.spec.ts checks them against the measured figures), the
// bench prints the ceiling of each run's own figures with it, and docs/design.md's table is its output.

import { FUNCTIONS, STREAMING_INTEGRATION_HEADROOM_SECONDS } from '../lib/contract/deployment';
import { STREAMING_LIMITS } from '../lib/contract/streaming-limits';
import { MEASURED, type CodingFigures, type ListFigures } from './measured';

const MiB = 1024 * 1024;

/**
 * The slowest client connection a listing is sized for, in wire bytes a second: the largest
 * listing a client can get whole (200 MB of gzip) reaches such a client within the timeout. A
 * slower client is cut at the timeout, and the duration alarm (not the store-size alarms) fires.
 */
export const MIN_CLIENT_BYTES_PER_SECOND = 0.5 * MiB;

/**
 * The figures the deployed settings are checked against: the latest full `npm run bench`, read from
 * bench/results.json by infra/measured.ts. Lambda's arm64 vCPU is not this CPU: see docs/design.md.
 */
export { MEASURED };

/** Headroom over the time the largest listing needs, for a slower vCPU or a slower Scan than measured. */
const TIMEOUT_SAFETY = 1.5;
/** Timeouts are rounded up to this, so a small change in the figures does not move the setting. */
const TIMEOUT_STEP_SECONDS = 30;

export type Limit = 'response size' | 'bandwidth' | 'CPU';

export interface Ceiling {
  /** The most orders one response can carry with these settings. */
  orders: number;
  limitedBy: Limit;
  /** How long that largest listing takes. */
  seconds: number;
  bytes: number;
}

const vcpus = (memoryMb: number): number => memoryMb / STREAMING_LIMITS.memoryMbPerVcpu;

/** Seconds to send `bytes`: the full-speed part costs nothing here, the rest goes at the cap. */
export function wireSeconds(bytes: number): number {
  return Math.max(0, bytes - STREAMING_LIMITS.fullSpeedBytes) / STREAMING_LIMITS.cappedBytesPerSecond;
}

/**
 * The most orders one response carries within the timeout: the least of what fits in 200 MB, what
 * the capped bandwidth sends in time, and what the CPU serialises (and compresses) in time. Node
 * runs the handler on one thread, so more than one vCPU is not counted.
 */
export function ceiling(figures: CodingFigures, memoryMb: number, timeoutSeconds: number): Ceiling {
  const bySize = Math.floor(STREAMING_LIMITS.maxResponseBytes / figures.bytesPerOrder);
  const byBandwidth = Math.floor(
    (STREAMING_LIMITS.fullSpeedBytes + STREAMING_LIMITS.cappedBytesPerSecond * timeoutSeconds) / figures.bytesPerOrder,
  );
  const byCpu = Math.floor(figures.ordersPerCpuSecond * Math.min(1, vcpus(memoryMb)) * timeoutSeconds);
  const candidates: [number, Limit][] = [
    [bySize, 'response size'],
    [byBandwidth, 'bandwidth'],
    [byCpu, 'CPU'],
  ];
  const [orders, limitedBy] = candidates.reduce((a, b) => (b[0] < a[0] ? b : a));
  return {
    orders,
    limitedBy,
    seconds: listingSeconds(figures, memoryMb, orders),
    bytes: orders * figures.bytesPerOrder,
  };
}

/**
 * Seconds to deliver `bytes` to a client that reads `clientBytesPerSecond`: the client's own
 * speed, or Lambda's cap if that is slower.
 */
export function clientWireSeconds(bytes: number, clientBytesPerSecond: number): number {
  return Math.max(bytes / clientBytesPerSecond, wireSeconds(bytes));
}

/** A listing's two clocks: the CPU's time to write it, and the wire's to send it (Lambda's cap). */
export interface ListingTime {
  cpuSeconds: number;
  wireSeconds: number;
  /** The slower of the two: they work at once. */
  seconds: number;
  boundBy: 'CPU' | 'wire';
}

export function listingTime(figures: CodingFigures, memoryMb: number, orders: number): ListingTime {
  const cpuSeconds = orders / (figures.ordersPerCpuSecond * Math.min(1, vcpus(memoryMb)));
  const wire = wireSeconds(orders * figures.bytesPerOrder);
  return {
    cpuSeconds,
    wireSeconds: wire,
    seconds: Math.max(cpuSeconds, wire),
    boundBy: cpuSeconds >= wire ? 'CPU' : 'wire',
  };
}

/** How long a listing of `orders` takes: CPU and the wire work at once, so the slower one sets it. */
export function listingSeconds(figures: CodingFigures, memoryMb: number, orders: number): number {
  return listingTime(figures, memoryMb, orders).seconds;
}

export interface ListSettings {
  memoryMb: number;
  timeoutSeconds: number;
}

/**
 * listOrders' memory and timeout: one full vCPU (a listing's first 6 MB, which Lambda sends
 * uncapped, and so most stores' whole listing, take as long as the CPU does, and the listing is
 * written on one thread: docs/design.md#what-memory-buys-a-listing), and time for the largest
 * response a client can get whole (200 MB of gzip): its CPU time with TIMEOUT_SAFETY, or its time
 * on the wire to a client at MIN_CLIENT_BYTES_PER_SECOND, whichever is longer, within API
 * Gateway's 15-minute stream.
 */
export function listSettings(
  figures: ListFigures,
  minClientBytesPerSecond: number = MIN_CLIENT_BYTES_PER_SECOND,
): ListSettings {
  const memoryMb = STREAMING_LIMITS.memoryMbPerVcpu;
  const largestBytes = STREAMING_LIMITS.maxResponseBytes;
  const largest = Math.floor(largestBytes / figures.compressed.bytesPerOrder);
  const cpu = listingSeconds(figures.compressed, memoryMb, largest) * TIMEOUT_SAFETY;
  const client = clientWireSeconds(largestBytes, minClientBytesPerSecond);
  const longest = STREAMING_LIMITS.maxIntegrationSeconds - STREAMING_INTEGRATION_HEADROOM_SECONDS;
  if (client > longest) {
    throw new Error(
      `A client at ${minClientBytesPerSecond} bytes/s needs ${Math.ceil(client)} s for the largest listing, more than the ${longest} s a stream may last: raise the minimum client bandwidth.`,
    );
  }
  const needed = Math.max(cpu, client);
  const timeoutSeconds = Math.min(longest, Math.ceil(needed / TIMEOUT_STEP_SECONDS) * TIMEOUT_STEP_SECONDS);
  return { memoryMb, timeoutSeconds };
}

/** list-orders' memory and timeout as deployed (declared in the contract; listSettings(MEASURED) must give them). */
export const LIST_SETTINGS: ListSettings = {
  memoryMb: FUNCTIONS['list-orders'].memoryMb,
  timeoutSeconds: FUNCTIONS['list-orders'].timeoutSeconds,
};

/**
 * What the deployed settings deliver, for the alarms: the most orders one (compressed) listing
 * carries, and the size at which Lambda cuts a stream, which an uncompressed listing of the whole
 * store reaches first.
 */
export const LIST_CEILING = {
  orders: ceiling(MEASURED.compressed, LIST_SETTINGS.memoryMb, LIST_SETTINGS.timeoutSeconds).orders,
  bytes: STREAMING_LIMITS.maxResponseBytes,
} as const;

/** The slowest client that still gets the largest listing whole at these settings, in bytes a second. */
export function slowestWholeClient(settings: ListSettings): number {
  return STREAMING_LIMITS.maxResponseBytes / settings.timeoutSeconds;
}

const thousands = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The arithmetic as docs/design.md shows it: one row per coding, at the given settings. */
export function budgetTable(figures: ListFigures, settings: ListSettings): string {
  const rows = (['plain', 'compressed'] as const).map((coding) => {
    const f = figures[coding];
    const c = ceiling(f, settings.memoryMb, settings.timeoutSeconds);
    const wireRate = STREAMING_LIMITS.cappedBytesPerSecond / f.bytesPerOrder;
    const slowClient = Math.max(c.seconds, clientWireSeconds(c.bytes, MIN_CLIENT_BYTES_PER_SECOND));
    return `| ${coding === 'plain' ? 'identity' : 'gzip'} | ${thousands(f.bytesPerOrder, 1)} | ${thousands(f.ordersPerCpuSecond)} | ${thousands(wireRate)} | ${thousands(Math.floor(STREAMING_LIMITS.maxResponseBytes / f.bytesPerOrder))} | **${thousands(c.orders)}** (${c.limitedBy}) | ${thousands(c.seconds)} s | ${thousands(slowClient)} s |`;
  });
  return [
    `| Coding | Bytes an order | Orders per CPU second | Orders/s at 2 MB/s | Orders in 200 MB | Ceiling at ${thousands(settings.memoryMb)} MB, ${settings.timeoutSeconds} s | Time of that listing | Its time to a client at ${thousands(MIN_CLIENT_BYTES_PER_SECOND / MiB, 1)} MB/s |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
