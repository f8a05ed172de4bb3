// The worst a single key can cost per day by listing, with and without the cap on listings in
// flight, from the deployed settings (list-budget.ts) and the plans. docs/listing-limits.md
// shows this table; a test keeps the two the same.
import { LIST_SETTINGS, listingSeconds } from './list-budget';
import { MEASURED } from './measured';
import { STREAMING_LIMITS } from '../lib/contract/streaming-limits';
import { LISTINGS_IN_FLIGHT, PLAN_LIMITS, type PlanName } from '../lib/contract/plans';
import { FUNCTIONS } from '../lib/contract/deployment';
import { ROUTES, V2_ROUTES } from '../lib/contract/routes';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DAY_SECONDS = 86_400;

export interface DailyCost {
  plan: PlanName;
  listingsPerDay: number;
  /** Executions one key can keep running at once. */
  concurrent: number;
  egressGiB: number;
  lambdaGbSeconds: number;
}

const memoryGb = () => LIST_SETTINGS.memoryMb / 1024;

/**
 * Without the cap: every listing the day window admits may be the largest Lambda sends (200 MB)
 * and run the whole timeout; the minute window lets a key start perMinute of them a minute.
 */
export function uncappedCost(plan: Exclude<PlanName, 'enterprise'>): DailyCost {
  const { perMinute, perDay } = PLAN_LIMITS[plan];
  const timeout = LIST_SETTINGS.timeoutSeconds;
  return {
    plan,
    listingsPerDay: perDay,
    concurrent: Math.ceil((perMinute * timeout) / 60),
    egressGiB: (perDay * STREAMING_LIMITS.maxResponseBytes) / GiB,
    lambdaGbSeconds: perDay * timeout * memoryGb(),
  };
}

/**
 * With the cap of C listings at once: a key runs at most C executions at any moment, so at most
 * C x 86,400 s a day; each listing sends at most its first 6 MB at full speed and 2 MB/s after
 * that, so the bytes of a day are at most C x 86,400 s x 2 MB/s plus 6 MB per listing, and never
 * more than without the cap.
 */
export function cappedCost(plan: Exclude<PlanName, 'enterprise'>): DailyCost {
  const uncapped = uncappedCost(plan);
  const cap = LISTINGS_IN_FLIGHT[plan];
  const streamedBytes =
    cap * DAY_SECONDS * STREAMING_LIMITS.cappedBytesPerSecond +
    uncapped.listingsPerDay * STREAMING_LIMITS.fullSpeedBytes;
  return {
    plan,
    listingsPerDay: uncapped.listingsPerDay,
    concurrent: cap,
    egressGiB: Math.min(uncapped.egressGiB, streamedBytes / GiB),
    lambdaGbSeconds: Math.min(uncapped.lambdaGbSeconds, cap * DAY_SECONDS * memoryGb()),
  };
}

const n = (value: number) => Math.round(value).toLocaleString('en-US');

/** The table docs/listing-limits.md shows. */
export function dailyCostTable(): string {
  const plans = ['free', 'pro', 'business'] as const;
  const rows = plans.map((plan) => {
    const without = uncappedCost(plan);
    const withCap = cappedCost(plan);
    return `| ${plan} | ${n(without.listingsPerDay)} | ${n(without.concurrent)} / ${n(withCap.concurrent)} | ${n(without.egressGiB)} / ${n(withCap.egressGiB)} | ${n(without.lambdaGbSeconds)} / ${n(withCap.lambdaGbSeconds)} |`;
  });
  return [
    `| Plan | Listings a day (day window) | Executions at once: without / with cap | Egress GiB a day: without / with cap | Lambda GB-s a day (${LIST_SETTINGS.memoryMb} MB, ${LIST_SETTINGS.timeoutSeconds} s): without / with cap |`,
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

// The stage's monthly bill, priced: one model for an idle stage and for a stated load, rendered
// into docs/deployment.md by `npm run generate`. The listing's bytes and CPU are the bench's
// (infra/measured.ts), its memory the deployed one; everything else is a list price below.

/**
 * AWS list prices in US$ (us-east-1, on-demand, arm64), with the date they were taken from the
 * pricing pages. The first tier of each is used unless a tiered price is given.
 */
export const PRICES = {
  asOf: '2026-11',
  region: 'us-east-1',
  /** Data transfer out to the internet per GB, by monthly tier (GB up to, price); the first 100 GB a month are free. */
  egressTiers: [
    { upToGb: 100, perGb: 0 },
    { upToGb: 10_240, perGb: 0.09 },
    { upToGb: 51_200, perGb: 0.085 },
    { upToGb: 153_600, perGb: 0.07 },
    { upToGb: Number.POSITIVE_INFINITY, perGb: 0.05 },
  ],
  /** DynamoDB on-demand: per million read request units (one per 4 KB strongly consistent, half that eventually). */
  dynamoReadPerMillion: 0.125,
  dynamoWritePerMillion: 0.625,
  lambdaGbSecond: 0.0000133334,
  lambdaRequestPerMillion: 0.2,
  /** Lambda response streaming: per GB a response streams beyond its first 6 MB. */
  streamedGb: 0.008,
  /** API Gateway REST, first 333 million requests a month. */
  restRequestPerMillion: 3.5,
  /** A standard-resolution alarm, a month. */
  alarmMonth: 0.1,
  /** A dashboard, a month (an account's first three are free; the stages are counted as if it had none left). */
  dashboardMonth: 3,
} as const;

const GB = 1024 * MiB;

/** A month's load on one stage. */
export interface Load {
  name: string;
  requestsPerMonth: number;
  listingsPerMonth: number;
  /** Orders in the store, which every listing reads whole. */
  storeOrders: number;
  coding: 'gzip' | 'identity';
}

/** The prod load the docs price: 30 M requests a month, 1.5 M of them gzip listings of a 1M-order store. */
export const PROD_LOAD: Load = {
  name: 'prod',
  requestsPerMonth: 30_000_000,
  listingsPerMonth: 1_500_000,
  storeOrders: 1_000_000,
  coding: 'gzip',
};

/** The stage's standing charges, which do not depend on traffic: what an idle stage costs. */
export interface Standing {
  alarms: number;
  dashboards: number;
}

/**
 * The alarms a stage stack creates (infra/constructs/service-alarms.ts), from the declarations: per
 * API (v1, v2) its 5XX rate; per route its p99 latency, or for a streamed one its function's
 * duration; three on the store's size against one listing; authorizer failures; Lambda throttles;
 * and two rollback alarms (errors, latency) per function.
 */
function stageAlarms(): number {
  const apis = [ROUTES, V2_ROUTES];
  return apis.length + apis.flat().length + 3 + 1 + 1 + 2 * Object.keys(FUNCTIONS).length;
}

/**
 * What each stage stack creates that is billed by the month: its alarms and its dashboard (the
 * template test test/infra/cost.spec.ts counts them in the synthesised stacks, so this cannot drift).
 */
export const STAGE_STANDING: Standing = { alarms: stageAlarms(), dashboards: 1 };

/**
 * DynamoDB's size of an item as reads count it: each attribute's name plus its value (a string's
 * UTF-8 bytes, a number's significant digits two to a byte plus one, a boolean one byte).
 */
export function itemBytes(item: Record<string, string | number | bigint | boolean | undefined>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    bytes += Buffer.byteLength(name);
    if (typeof value === 'string') bytes += Buffer.byteLength(value);
    else if (typeof value === 'boolean') bytes += 1;
    else
      bytes +=
        Math.ceil(
          String(value)
            .replace(/^-/, '')
            .replace(/^0+|0+$/g, '').length / 2,
        ) + 1;
  }
  return bytes;
}

/** A typical stored order: 19-digit ids, a two-digit quantity, the admin import's date form. */
export const TYPICAL_ORDER_ITEM_BYTES = itemBytes({
  id: 1_234_567_890_123_456_789n,
  petId: 1_234_567_890_123_456_789n,
  quantity: 12,
  shipDate: '2026-11-20T10:00:00.000Z',
  complete: false,
  status: 'pending',
});

/** Price of `gb` egress in a month, through the tiers. */
export function egressPrice(gb: number): number {
  let price = 0;
  let from = 0;
  for (const tier of PRICES.egressTiers) {
    const inTier = Math.max(0, Math.min(gb, tier.upToGb) - from);
    price += inTier * tier.perGb;
    from = tier.upToGb;
  }
  return price;
}

export interface MonthlyCost {
  load: Load;
  egress: number;
  scanReads: number;
  listingCompute: number;
  streamedBytes: number;
  apiGateway: number;
  /** Lambda requests of every function, and the limiter's writes (one counting write a request). */
  requests: number;
  standing: number;
  total: number;
}

/**
 * A month at `load`: every listing reads the whole store (eventually consistent Scan, so half a
 * unit per 4 KB) and sends it whole at the bench's bytes an order, running as long as its CPU
 * or the capped stream needs; every request passes API Gateway, one Lambda invocation and one
 * limiter write (authorizer answers are cached, so its invocations are left out).
 */
export function monthlyCost(load: Load, standing: Standing): MonthlyCost {
  const figures = load.coding === 'gzip' ? MEASURED.compressed : MEASURED.plain;
  const bytesPerListing = load.storeOrders * figures.bytesPerOrder;
  const egress = egressPrice((load.listingsPerMonth * bytesPerListing) / GB);
  const readUnits = Math.ceil((load.storeOrders * TYPICAL_ORDER_ITEM_BYTES) / 4096) / 2;
  const scanReads = (load.listingsPerMonth * readUnits * PRICES.dynamoReadPerMillion) / 1e6;
  const seconds = listingSeconds(figures, LIST_SETTINGS.memoryMb, load.storeOrders);
  const listingCompute = load.listingsPerMonth * seconds * memoryGb() * PRICES.lambdaGbSecond;
  const streamedGb = (load.listingsPerMonth * Math.max(0, bytesPerListing - STREAMING_LIMITS.fullSpeedBytes)) / GB;
  const streamedBytes = streamedGb * PRICES.streamedGb;
  const apiGateway = (load.requestsPerMonth * PRICES.restRequestPerMillion) / 1e6;
  const requests = (load.requestsPerMonth * (PRICES.lambdaRequestPerMillion + PRICES.dynamoWritePerMillion)) / 1e6;
  const standingCost = standing.alarms * PRICES.alarmMonth + standing.dashboards * PRICES.dashboardMonth;
  const items = { egress, scanReads, listingCompute, streamedBytes, apiGateway, requests, standing: standingCost };
  return { load, ...items, total: Object.values(items).reduce((a, b) => a + b, 0) };
}

/** An idle stage: no request at all. */
export const IDLE: Load = {
  name: 'idle staging',
  requestsPerMonth: 0,
  listingsPerMonth: 0,
  storeOrders: 0,
  coding: 'gzip',
};

const usd = (value: number) =>
  `$${value.toLocaleString('en-US', { maximumFractionDigits: value < 100 ? 2 : 0, minimumFractionDigits: value < 100 ? 2 : 0 })}`;

/** docs/deployment.md's table: idle staging, the prod load gzip, and the same load uncompressed. */
export function monthlyCostTable(standing: Standing): string {
  const loads = [IDLE, PROD_LOAD, { ...PROD_LOAD, name: 'prod, listings uncompressed', coding: 'identity' as const }];
  const costs = loads.map((load) => monthlyCost(load, standing));
  const row = (label: string, pick: (c: MonthlyCost) => number) =>
    `| ${label} | ${costs.map((c) => usd(pick(c))).join(' | ')} |`;
  return [
    `| US$ a month (${PRICES.region} list prices of ${PRICES.asOf}) | ${loads.map((l) => l.name).join(' | ')} |`,
    `| --- | ${loads.map(() => '---').join(' | ')} |`,
    row('Egress (data transfer out)', (c) => c.egress),
    row('DynamoDB Scan reads', (c) => c.scanReads),
    row('list-orders compute (GB-s)', (c) => c.listingCompute),
    row('Lambda streamed bytes (beyond 6 MB)', (c) => c.streamedBytes),
    row('API Gateway REST requests', (c) => c.apiGateway),
    row('Lambda requests and limiter writes', (c) => c.requests),
    row(`Alarms (${standing.alarms}) and dashboard`, (c) => c.standing),
    row('**Total**', (c) => c.total),
  ].join('\n');
}

/** The load and the prices behind the table, as docs/deployment.md states them under it. */
export function monthlyCostAssumptions(): string {
  const f = MEASURED.compressed;
  const seconds = listingSeconds(f, LIST_SETTINGS.memoryMb, PROD_LOAD.storeOrders);
  const n0 = (v: number, d = 0) => v.toLocaleString('en-US', { maximumFractionDigits: d });
  return [
    `The prod load: ${n0(PROD_LOAD.requestsPerMonth)} requests a month, ${n0(PROD_LOAD.listingsPerMonth)} of them gzip listings of a ${n0(PROD_LOAD.storeOrders)}-order store`,
    `(${n0(f.bytesPerOrder, 1)} bytes an order as measured, ${n0((PROD_LOAD.storeOrders * f.bytesPerOrder) / MiB, 1)} MiB a listing, ${n0(seconds, 1)} s of list-orders at ${n0(LIST_SETTINGS.memoryMb)} MB each;`,
    `an item of about ${TYPICAL_ORDER_ITEM_BYTES} bytes, so an eventually consistent Scan of the store is ${n0(Math.ceil((PROD_LOAD.storeOrders * TYPICAL_ORDER_ITEM_BYTES) / 4096) / 2)} read units).`,
    `Prices (${PRICES.region}, ${PRICES.asOf}): egress ${PRICES.egressTiers.map((t) => `$${t.perGb}`).join(' / ')} per GB by tier (first 100 GB free, then to 10 TB, 50 TB, 150 TB, beyond);`,
    `DynamoDB on demand $${PRICES.dynamoReadPerMillion} per million reads, $${PRICES.dynamoWritePerMillion} per million writes; Lambda arm64 $${PRICES.lambdaGbSecond} per GB-s,`,
    `$${PRICES.lambdaRequestPerMillion} per million requests, streamed bytes $${PRICES.streamedGb} per GB beyond 6 MB a response; API Gateway REST $${PRICES.restRequestPerMillion} per million;`,
    `an alarm $${PRICES.alarmMonth} and a dashboard $${PRICES.dashboardMonth} a month. Logs, X-Ray and table storage are left out.`,
  ].join('\n');
}
