// The worst a single key can cost per day by listing, with and without the cap on listings in
// flight, from the deployed settings (list-budget.ts) and the plans. docs/listing-limits.md
// shows this table; a test keeps the two the same.
import { LIST_SETTINGS, listingSeconds, listingTime } from './list-budget';
import { MEASURED, type ListFigures } from './measured';
import { STREAMING_LIMITS } from '../lib/contract/streaming-limits';
import { FIXED_LIMIT_PLANS, LISTINGS_IN_FLIGHT, PLAN_LIMITS, type FixedLimitPlan } from '../lib/contract/plans';
import { FUNCTIONS, QUEUE_MAPPINGS, SCHEDULES, STREAM_MAPPINGS } from '../lib/contract/deployment';
import { INDEX_CANARY } from '../lib/contract/index-canary';
import { ROUTES, V2_ROUTES } from '../lib/contract/routes';
import { ORDER_INDEXES, SYNC_SHARDS, TABLES } from '../lib/contract/tables';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../lib/contract/auth';
import { ADDRESS_LIMIT, WAF_RATE_RULE } from '../lib/contract/address-limit';
import { storedOrderItem } from '../lib/stores/orders';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DAY_SECONDS = 86_400;

export interface DailyCost {
  plan: FixedLimitPlan;
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
export function uncappedCost(plan: FixedLimitPlan): DailyCost {
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
export function cappedCost(plan: FixedLimitPlan): DailyCost {
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

/** The table docs/listing-limits.md shows: a row for each plan with limits of its own. */
export function dailyCostTable(): string {
  const rows = FIXED_LIMIT_PLANS.map((plan) => {
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
// (infra/measured.ts), its memory the deployed one, the item size a real stored item's; everything
// else is a list price below. What it cannot price (no measured volume) it names.

/**
 * AWS list prices in US$ (us-east-1, on-demand, arm64), with the date they were taken from the
 * pricing pages (aws.amazon.com/{api-gateway,lambda,dynamodb,cloudwatch,secrets-manager,waf}/pricing).
 * The first tier of each is used unless a tiered price is given.
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
  /** DynamoDB provisioned capacity: a read capacity unit (4 KB a second strongly consistent, 8 KB eventually) an hour, and a write capacity unit. */
  dynamoRcuHour: 0.00013,
  dynamoWcuHour: 0.00065,
  lambdaGbSecond: 0.0000133334,
  lambdaRequestPerMillion: 0.2,
  /** Lambda response streaming: per GB a response streams beyond its first 6 MB. */
  streamedGb: 0.008,
  /** API Gateway REST, first 333 million requests a month. */
  restRequestPerMillion: 3.5,
  /** A standard-resolution alarm metric, a month: an alarm on a math expression pays for each metric it reads. */
  alarmMetricMonth: 0.1,
  /** A dashboard, a month (an account's first three are free; the stages are counted as if it had none left). */
  dashboardMonth: 3,
  /** A custom metric, a month (first 10,000): API Gateway's detailed metrics are billed as custom metrics. */
  customMetricMonth: 0.3,
  /** A Secrets Manager secret, a month; its API calls are $0.05 per 10,000. */
  secretMonth: 0.4,
  secretCallsPer10k: 0.05,
  /** CloudWatch Logs ingestion (standard class), per GB. */
  logsIngestGb: 0.5,
  /**
   * AWS WAF: a web ACL a month and a rule in it a month (both prorated by the hour), and a million
   * requests the web ACL inspects, blocked ones included. The same in every Region.
   */
  wafWebAclMonth: 5,
  wafRuleMonth: 1,
  wafRequestPerMillion: 0.6,
  /** DynamoDB storage (Standard table class) per GB-month, beyond the first 25 GB of the account and Region. */
  dynamoStorageGbMonth: 0.25,
  dynamoFreeStorageGb: 25,
  /**
   * SQS standard queue, per million requests (each 64 KB of a request's payload one request), and the
   * surcharge on the requests of a fair queue's messages (those with a MessageGroupId), as a
   * third-party summary of the SQS pricing page gives it (cloudburn.io, 2026-03): to be checked
   * against aws.amazon.com/sqs/pricing, which this model could not read.
   */
  sqsRequestPerMillion: 0.4,
  sqsFairQueueSurchargePerMillion: 0.1,
} as const;

const GB = 1024 * MiB;
const MONTH_HOURS = 730;
const MONTH_SECONDS = MONTH_HOURS * 3600;

/**
 * API Gateway bills a streamed response as one request per 10 MB of it, rounded up ("each 10 MB of
 * response data, rounded up to the nearest 10 MB, is billed as a single request": the API Gateway
 * pricing page, and AWS's announcement of REST response streaming, 2025-11-19). Read as 10^7 bytes,
 * which counts more requests than 10 MiB would.
 */
export const STREAMED_BYTES_PER_BILLED_REQUEST = 10_000_000;

/** API Gateway's detailed metrics of one method: Count, 4XXError, 5XXError, Latency, IntegrationLatency, CacheHitCount, CacheMissCount. */
export const DETAILED_METRICS_PER_METHOD = 7;

/**
 * The lease writes of one listing (lib/stores/listings-in-flight.ts): a conditional PutItem taking a
 * slot of the key and one of the stage, and one giving each back, each an item under 1 KB. More when
 * a slot tried first is taken (a failed condition costs a write unit too).
 */
export const LEASE_WRITES_PER_LISTING = 4;

/**
 * The write units of a cancel (one order item under 1 KB): the order's own write, and in each v2
 * index a delete of its old entry and a put of its new one, since a cancel changes both indexes'
 * keys (status, and updatedAt in the sort key). DynamoDB: "If an update to the table changes the value
 * of an indexed key attribute (from A to B), two writes are required, one to delete the previous item
 * from the index and another write to put the new item into the index"
 * (docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Writes).
 */
export const CANCEL_WRITE_UNITS = 1 + 2 * Object.keys(ORDER_INDEXES).length;

/**
 * What one partition of an index takes, in write units a second (DynamoDB's per-partition limit),
 * and so what the v2 indexes take before adaptive capacity splits a partition: one partition per
 * shard value, SYNC_SHARDS of them per index (docs/design.md#the-v2-listings-indexes).
 */
export const PARTITION_WRITES_PER_SECOND = 1_000;
export const INDEX_WRITES_PER_SECOND = SYNC_SHARDS * PARTITION_WRITES_PER_SECOND;

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
  /** What alarms are billed by: the metrics they read (a math expression's each). */
  alarmMetrics: number;
  dashboards: number;
  secrets: number;
  /** AWS WAF web ACLs, and the rules in them (infra/constructs/address-firewall.ts). */
  webAcls: number;
  wafRules: number;
}

/** The API's methods that answer traffic (each has API Gateway's detailed metrics once called). */
const API_METHODS = ROUTES.length + V2_ROUTES.length;

/**
 * The alarms a stage stack creates (infra/constructs/service-alarms.ts), from the declarations, and
 * the metrics each reads: per API (v1, v2) its 5XX rate; per route its p99 latency, or for a
 * streamed one its function's duration; three on the store's size against one listing; authorizer
 * failures; one on every function's throttles (a metric each); one on the orders indexes' write
 * throttles (a metric each); the web ACL's blocks; per function released through CodeDeploy the
 * rollback alarms: errors (for all but the authorizer a rate, two metrics), latency, and for the
 * authorizer its refusal rate (two metrics); the sync watch's five; the index-lag canary's, one per
 * index over the budget and one on the canary silent; and event delivery's seven.
 */
function stageAlarms(): { alarms: number; metrics: number } {
  const functions = Object.keys(FUNCTIONS).length;
  // Released through CodeDeploy, with rollback alarms: the functions behind the APIs.
  const released =
    functions -
    Object.keys(STREAM_MAPPINGS).length -
    Object.keys(QUEUE_MAPPINGS).length -
    Object.keys(SCHEDULES).length;
  const single = 2 + API_METHODS + 3 + 1 + 1;
  const throttles = { alarms: 1, metrics: functions };
  const indexThrottles = { alarms: 1, metrics: TABLES.orders.indexes.length };
  const rollback = { alarms: 2 * released + 1, metrics: 1 + 2 * (released - 1) + released + 2 };
  // The sync watch's (infra/constructs/change-stream.ts): late and ahead changes, its iterator age,
  // its errors and its dead-letter queue, a metric each.
  const syncWatch = { alarms: 5, metrics: 5 };
  // Event delivery's (infra/constructs/webhook-delivery.ts): the oldest queued delivery, the failure
  // rate (delivered and failed: two metrics), both dead-letter queues, the fan-out's iterator age and
  // errors, the worker's errors.
  const webhooks = { alarms: 7, metrics: 8 };
  // The index-lag canary's (infra/constructs/index-canary.ts), a metric each.
  const canary = { alarms: TABLES.orders.indexes.length + 1, metrics: TABLES.orders.indexes.length + 1 };
  const parts = [throttles, indexThrottles, rollback, syncWatch, canary, webhooks];
  return {
    alarms: single + parts.reduce((sum, part) => sum + part.alarms, 0),
    metrics: single + parts.reduce((sum, part) => sum + part.metrics, 0),
  };
}

/**
 * What each stage stack creates that is billed by the month: its alarms (by metric), its dashboard,
 * its secrets (the v2 cursor key, the release canary key), and its web ACL with its one rule (the
 * limit per client address). The template test test/infra/cost.spec.ts counts them in the
 * synthesised stacks, so this cannot drift.
 */
export const STAGE_STANDING: Standing = {
  alarms: stageAlarms().alarms,
  alarmMetrics: stageAlarms().metrics,
  dashboards: 1,
  secrets: 2,
  webAcls: 1,
  wafRules: 1,
};

/**
 * DynamoDB's size of an item as reads count it: each attribute's name plus its value (a string's
 * UTF-8 bytes, a number's significant digits two to a byte plus one, a boolean one byte).
 */
export function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    bytes += Buffer.byteLength(name);
    if (typeof value === 'string') bytes += Buffer.byteLength(value);
    else if (typeof value === 'boolean') bytes += 1;
    else if (typeof value === 'number' || typeof value === 'bigint')
      bytes +=
        Math.ceil(
          String(value)
            .replace(/^-/, '')
            .replace(/^0+|0+$/g, '').length / 2,
        ) + 1;
    else throw new Error(`No size rule for attribute ${name} (${typeof value})`);
  }
  return bytes;
}

/**
 * A typical stored order, as every write stores it since v2 (lib/stores/orders.ts's storedOrderItem:
 * the order's fields and its v2 index keys): 19-digit ids, a two-digit quantity, the admin import's
 * date form. A Scan of the table reads these bytes an order.
 */
export const TYPICAL_ORDER_ITEM_BYTES = itemBytes(
  storedOrderItem(
    {
      id: '1234567890123456789',
      petId: '1234567890123456789',
      quantity: 12,
      shipDate: '2026-11-20T10:00:00.000Z',
      complete: false,
      status: 'pending',
    },
    '2026-11-20T10:00:00.000Z',
  ),
);

/**
 * What DynamoDB bills as stored, on top of an item's bytes: "Every item in DynamoDB requires 100
 * bytes of storage overhead for indexing" (docs.aws.amazon.com/amazondynamodb/latest/developerguide/
 * CapacityUnitCalculations.html), and an index entry is its keys, its projected attributes and "100
 * bytes of overhead per index item" (GSI.html, storage considerations for global secondary indexes).
 */
export const STORAGE_OVERHEAD_BYTES = 100;

/**
 * The bytes a typical order occupies, in the orders table and in its indexes. Every index of the
 * orders table projects every attribute (lib/contract/tables.ts, infra/constructs/service-tables.ts)
 * and every order since v2 carries both indexes' keys, so each index holds a copy of the whole item
 * (its keys counted once) plus the overhead: the indexes cost more storage than the table itself.
 */
export const ORDER_STORAGE_BYTES = {
  table: TYPICAL_ORDER_ITEM_BYTES + STORAGE_OVERHEAD_BYTES,
  indexes: TABLES.orders.indexes.length * (TYPICAL_ORDER_ITEM_BYTES + STORAGE_OVERHEAD_BYTES),
};

/** A month's storage of `orders` typical orders, table and indexes, before the free 25 GB. */
export function orderStoragePrice(orders: number): number {
  return ((orders * (ORDER_STORAGE_BYTES.table + ORDER_STORAGE_BYTES.indexes)) / GB) * PRICES.dynamoStorageGbMonth;
}

/** The storage of an order, in words, for docs/design.md and the cost assumptions. */
export function orderStorageSentence(orders = PROD_LOAD.storeOrders): string {
  const { table, indexes } = ORDER_STORAGE_BYTES;
  const n0 = (v: number, d = 0) => v.toLocaleString('en-US', { maximumFractionDigits: d });
  const indexCount = TABLES.orders.indexes.length;
  return [
    `A stored order is ${TYPICAL_ORDER_ITEM_BYTES} bytes; DynamoDB stores ${table} bytes of it in the table and ${indexes} in its ${indexCount} indexes`,
    `(each entry the whole item, projection ALL, plus ${STORAGE_OVERHEAD_BYTES} bytes of overhead an item and an index entry), ${n0(table + indexes)} bytes an order in all:`,
    `${n0((orders * (table + indexes)) / GB, 2)} GB at ${n0(orders)} orders, $${n0(orderStoragePrice(orders), 2)} a month at $${PRICES.dynamoStorageGbMonth} per GB-month`,
    `(nothing within the first ${PRICES.dynamoFreeStorageGb} GB, which DynamoDB does not bill, shared by every table of the account and Region).`,
  ].join('\n');
}

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

/** Eventually consistent read units of one Scan of a store: half a unit per 4 KB. */
export function scanReadUnits(storeOrders: number): number {
  return Math.ceil((storeOrders * TYPICAL_ORDER_ITEM_BYTES) / 4096) / 2;
}

/** The requests API Gateway bills for one response of `bytes` streamed: one per 10 MB, rounded up. */
export function billedStreamRequests(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / STREAMED_BYTES_PER_BILLED_REQUEST));
}

/**
 * The index-lag canary's runs of a month, whatever the traffic (lib/edge/index-canary-handler.ts):
 * one a period, each a strongly consistent GetItem of the sentinel (one read unit: under 4 KB), its
 * probe (an UpdateItem that moves the sentinel's key in both indexes: the table's write, and a
 * delete and a put in each index), its read-back (half a read unit a Query, one per index a poll, for
 * AWS's "within 1 second"), its record (an UpdateItem of a non-key attribute: the table's write and
 * one in each index), a Lambda request and a second at its memory; the sync watch reads the two
 * writes from the stream, a Lambda request each at a trickle. EventBridge Scheduler's first 14
 * million invocations a month are free (aws.amazon.com/eventbridge/pricing).
 */
export function canaryMonth(): { runs: number; dollars: number } {
  const runs = MONTH_SECONDS / INDEX_CANARY.periodSeconds;
  const indexes = TABLES.orders.indexes.length;
  const polls = Math.ceil(1000 / INDEX_CANARY.pollMs);
  const reads = 1 + polls * indexes * 0.5;
  const writes = 1 + 2 * indexes + (1 + indexes);
  const seconds = 1;
  const perRun =
    (reads * PRICES.dynamoReadPerMillion + writes * PRICES.dynamoWritePerMillion) / 1e6 +
    (3 * PRICES.lambdaRequestPerMillion) / 1e6 +
    seconds * (FUNCTIONS['index-canary'].memoryMb / 1024) * PRICES.lambdaGbSecond;
  return { runs, dollars: runs * perRun };
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
  /** The listings' lease writes (LEASE_WRITES_PER_LISTING each). */
  leaseWrites: number;
  /** API Gateway's detailed metrics, of every method that got traffic. */
  detailedMetrics: number;
  /** AWS WAF's inspection of every request (a streamed listing is one, however long). */
  wafRequests: number;
  /** The index-lag canary's runs, every minute whatever the traffic. */
  canary: number;
  standing: number;
  total: number;
}

/**
 * A month at `load`: every listing reads the whole store (eventually consistent Scan, so half a
 * unit per 4 KB) and sends it whole at the bench's bytes an order, running as long as its CPU
 * or the capped stream needs, billed by API Gateway as one request per 10 MB; every request passes
 * API Gateway, one Lambda invocation and one limiter write; each listing writes its leases.
 * Authorizer invocations (its answers are cached per key) are priced per key in the assumptions.
 */
export function monthlyCost(load: Load, standing: Standing): MonthlyCost {
  const figures = load.coding === 'gzip' ? MEASURED.compressed : MEASURED.plain;
  const bytesPerListing = load.storeOrders * figures.bytesPerOrder;
  const egress = egressPrice((load.listingsPerMonth * bytesPerListing) / GB);
  const scanReads = (load.listingsPerMonth * scanReadUnits(load.storeOrders) * PRICES.dynamoReadPerMillion) / 1e6;
  const seconds = listingSeconds(figures, LIST_SETTINGS.memoryMb, load.storeOrders);
  const listingCompute = load.listingsPerMonth * seconds * memoryGb() * PRICES.lambdaGbSecond;
  const streamedGb = (load.listingsPerMonth * Math.max(0, bytesPerListing - STREAMING_LIMITS.fullSpeedBytes)) / GB;
  const streamedBytes = streamedGb * PRICES.streamedGb;
  const billedRequests =
    load.requestsPerMonth - load.listingsPerMonth + load.listingsPerMonth * billedStreamRequests(bytesPerListing);
  const apiGateway = (billedRequests * PRICES.restRequestPerMillion) / 1e6;
  const requests = (load.requestsPerMonth * (PRICES.lambdaRequestPerMillion + PRICES.dynamoWritePerMillion)) / 1e6;
  const leaseWrites = (load.listingsPerMonth * LEASE_WRITES_PER_LISTING * PRICES.dynamoWritePerMillion) / 1e6;
  const detailedMetrics =
    load.requestsPerMonth > 0 ? API_METHODS * DETAILED_METRICS_PER_METHOD * PRICES.customMetricMonth : 0;
  const wafRequests = (load.requestsPerMonth * PRICES.wafRequestPerMillion) / 1e6;
  const standingCost =
    standing.alarmMetrics * PRICES.alarmMetricMonth +
    standing.dashboards * PRICES.dashboardMonth +
    standing.secrets * PRICES.secretMonth +
    standing.webAcls * PRICES.wafWebAclMonth +
    standing.wafRules * PRICES.wafRuleMonth;
  const items = {
    egress,
    scanReads,
    listingCompute,
    streamedBytes,
    apiGateway,
    requests,
    leaseWrites,
    detailedMetrics,
    wafRequests,
    canary: canaryMonth().dollars,
    standing: standingCost,
  };
  return { load, ...items, total: Object.values(items).reduce((a, b) => a + b, 0) };
}

/** The Scan reads of a month three ways: on demand, and provisioned with auto scaling for the average or for the peak. */
export interface ScanCapacity {
  onDemand: number;
  /** Read capacity units the month's Scans take on average, and at the peak (every reserved listing at once). */
  averageRcu: number;
  peakRcu: number;
  /** Provisioned for the average at auto scaling's 70% target utilisation: listings beyond it are throttled. */
  provisionedAverage: number;
  /** Provisioned for the peak all month: auto scaling cannot follow a Scan of seconds (it acts over minutes). */
  provisionedPeak: number;
  /** Listings at once whose Scans reach the table's default read quota. */
  listingsAtQuota: number;
}

/**
 * DynamoDB's default table-level read quota, in units a second, for on-demand and provisioned tables
 * alike (docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
 */
export const TABLE_READ_UNITS_PER_SECOND = 40_000;

/** Auto scaling's usual target utilisation of provisioned capacity. */
export const AUTO_SCALING_TARGET = 0.7;

export function scanCapacity(load: Load, reservedListings: number): ScanCapacity {
  const figures = load.coding === 'gzip' ? MEASURED.compressed : MEASURED.plain;
  const units = scanReadUnits(load.storeOrders);
  const seconds = listingSeconds(figures, LIST_SETTINGS.memoryMb, load.storeOrders);
  const averageRcu = (load.listingsPerMonth * units) / MONTH_SECONDS;
  const peakRcu = (reservedListings * units) / seconds;
  const rcuMonth = MONTH_HOURS * PRICES.dynamoRcuHour;
  return {
    onDemand: (load.listingsPerMonth * units * PRICES.dynamoReadPerMillion) / 1e6,
    averageRcu,
    peakRcu,
    provisionedAverage: (averageRcu / AUTO_SCALING_TARGET) * rcuMonth,
    provisionedPeak: peakRcu * rcuMonth,
    listingsAtQuota: TABLE_READ_UNITS_PER_SECOND / (units / seconds),
  };
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
    row('DynamoDB Scan reads (on demand)', (c) => c.scanReads),
    row('list-orders compute (GB-s)', (c) => c.listingCompute),
    row('Lambda streamed bytes (beyond 6 MB)', (c) => c.streamedBytes),
    row('API Gateway REST requests (a streamed listing: one per 10 MB)', (c) => c.apiGateway),
    row('Lambda requests and limiter writes', (c) => c.requests),
    row(`Listing leases (${LEASE_WRITES_PER_LISTING} writes a listing)`, (c) => c.leaseWrites),
    row(
      `API Gateway detailed metrics (${API_METHODS} methods × ${DETAILED_METRICS_PER_METHOD})`,
      (c) => c.detailedMetrics,
    ),
    row('AWS WAF requests (every request the web ACL inspects)', (c) => c.wafRequests),
    row(`Index-lag canary (${Math.round(canaryMonth().runs).toLocaleString('en-US')} runs)`, (c) => c.canary),
    row(
      `Alarms (${standing.alarms}, billed by their ${standing.alarmMetrics} metrics), dashboard, secrets (${standing.secrets}), web ACL and its rule`,
      (c) => c.standing,
    ),
    row('**Total**', (c) => c.total),
  ].join('\n');
}

/** docs/deployment.md: the prod load's Scan reads on demand against provisioned capacity. */
export function scanCapacityTable(reservedListings: number): string {
  const c = scanCapacity(PROD_LOAD, reservedListings);
  const n0 = (v: number) => Math.round(v).toLocaleString('en-US');
  return [
    `| Scan reads of the prod load (${n0(PROD_LOAD.listingsPerMonth)} listings of ${n0(PROD_LOAD.storeOrders)} orders) | US$ a month |`,
    '| --- | --- |',
    `| On demand (what the table uses) | ${usd(c.onDemand)} |`,
    `| Provisioned for the average (${n0(c.averageRcu)} RCU) at ${AUTO_SCALING_TARGET * 100}% utilisation: listings above the average are throttled | ${usd(c.provisionedAverage)} |`,
    `| Provisioned for the peak (${reservedListings} listings at once: ${n0(c.peakRcu)} RCU) all month | ${usd(c.provisionedPeak)} |`,
    '',
    `Listings at once whose Scans reach the table's default ${n0(TABLE_READ_UNITS_PER_SECOND)} read units a second: ${c.listingsAtQuota.toFixed(1)} (the reserved concurrency allows ${reservedListings}).`,
  ].join('\n');
}

/**
 * What a flood of refused keys from one client address costs a day at most once the web ACL holds
 * it to ADDRESS_LIMIT (requests past it are blocked, costing their inspection alone). A random
 * well-formed key is an inspection, an authorizer invocation and its key read: API Gateway bills
 * no request its authorizer refuses ("Requests are not charged for authorization and authentication
 * failures", API Gateway pricing). A revoked key whose Allow API Gateway still caches reaches a
 * handler: an inspection, a REST request, an invocation and the limiter's failing write.
 */
export function addressFloodCost(): { requestsPerDay: number; randomKeysPerDay: number; revokedKeyPerDay: number } {
  const requestsPerDay = (ADDRESS_LIMIT.limit * DAY_SECONDS) / ADDRESS_LIMIT.windowSeconds;
  const perDay = (perMillion: number) => (requestsPerDay * perMillion) / 1e6;
  return {
    requestsPerDay,
    randomKeysPerDay: perDay(
      PRICES.wafRequestPerMillion + PRICES.lambdaRequestPerMillion + PRICES.dynamoReadPerMillion / 2,
    ),
    revokedKeyPerDay: perDay(
      PRICES.wafRequestPerMillion +
        PRICES.restRequestPerMillion +
        PRICES.lambdaRequestPerMillion +
        PRICES.dynamoWritePerMillion,
    ),
  };
}

/** The load and the prices behind the table, and what it leaves unpriced, as docs/deployment.md states them under it. */
export function monthlyCostAssumptions(): string {
  const f = MEASURED.compressed;
  const time = listingTime(f, LIST_SETTINGS.memoryMb, PROD_LOAD.storeOrders);
  const n0 = (v: number, d = 0) => v.toLocaleString('en-US', { maximumFractionDigits: d });
  const listingBytes = PROD_LOAD.storeOrders * f.bytesPerOrder;
  // An active key costs at most one authorizer invocation per API (v1, v2) per cache TTL.
  const keyInvocations = 2 * (MONTH_SECONDS / AUTHORIZER_CACHE_TTL_SECONDS);
  // A key read is one GetItem of an item under 4 KB, eventually consistent: half a read unit.
  const perKey = (keyInvocations * (PRICES.lambdaRequestPerMillion + PRICES.dynamoReadPerMillion / 2)) / 1e6;
  const cancelMillion = CANCEL_WRITE_UNITS * PRICES.dynamoWritePerMillion;
  const watch = STREAM_MAPPINGS['sync-watch'];
  const watchRequests = (1e6 / watch.batchSize) * (PRICES.lambdaRequestPerMillion / 1e6);
  const flood = addressFloodCost();
  return [
    `The prod load: ${n0(PROD_LOAD.requestsPerMonth)} requests a month, ${n0(PROD_LOAD.listingsPerMonth)} of them gzip listings of a ${n0(PROD_LOAD.storeOrders)}-order store`,
    `(${n0(f.bytesPerOrder, 1)} bytes an order as measured, ${n0(listingBytes / MiB, 1)} MiB a listing, billed by API Gateway as ${billedStreamRequests(listingBytes)} requests, ${n0(time.seconds, 1)} s of list-orders at ${n0(LIST_SETTINGS.memoryMb)} MB each:`,
    `${time.boundBy === 'wire' ? `the time Lambda takes to stream it, at most ${n0(STREAMING_LIMITS.cappedBytesPerSecond / MiB)} MiB/s past its first ${n0(STREAMING_LIMITS.fullSpeedBytes / MiB)} MiB, its CPU needing ${n0(time.cpuSeconds, 1)} s` : `its CPU time, ${n0(f.ordersPerCpuSecond)} orders a CPU second, streaming it taking ${n0(time.wireSeconds, 1)} s`};`,
    `a stored item of ${TYPICAL_ORDER_ITEM_BYTES} bytes with its v2 index keys, so an eventually consistent Scan of the store is ${n0(scanReadUnits(PROD_LOAD.storeOrders))} read units).`,
    `Prices (${PRICES.region}, ${PRICES.asOf}): egress ${PRICES.egressTiers.map((t) => `$${t.perGb}`).join(' / ')} per GB by tier (first 100 GB free, then to 10 TB, 50 TB, 150 TB, beyond);`,
    `DynamoDB on demand $${PRICES.dynamoReadPerMillion} per million reads, $${PRICES.dynamoWritePerMillion} per million writes (provisioned $${PRICES.dynamoRcuHour} per RCU-hour); Lambda arm64 $${PRICES.lambdaGbSecond} per GB-s,`,
    `$${PRICES.lambdaRequestPerMillion} per million requests, streamed bytes $${PRICES.streamedGb} per GB beyond 6 MB a response; API Gateway REST $${PRICES.restRequestPerMillion} per million;`,
    `an alarm metric $${PRICES.alarmMetricMonth}, a custom metric $${PRICES.customMetricMonth}, a dashboard $${PRICES.dashboardMonth} and a secret $${PRICES.secretMonth} a month;`,
    `AWS WAF $${PRICES.wafWebAclMonth} a web ACL and $${PRICES.wafRuleMonth} a rule a month, $${PRICES.wafRequestPerMillion} per million requests inspected.`,
    '',
    `Priced outside the table, for want of a count in the load: a cancel is ${CANCEL_WRITE_UNITS} write units (the order, and a delete and a put in each v2 index,`,
    `since it changes both indexes' keys), $${n0(cancelMillion, 3)} per million cancels; an active key costs at most ${n0(keyInvocations)} authorizer invocations a month`,
    `(one per API per ${AUTHORIZER_CACHE_TTL_SECONDS} s cache TTL), each a Lambda request and a key read: $${n0(perKey, 3)} a key a month, plus their duration.`,
    `The sync watch reads the orders stream ${watch.batchSize} changes a batch: $${n0(watchRequests, 4)} of Lambda requests per million changes at full batches (at a trickle, at most one`,
    `invocation a ${watch.batchingWindowSeconds} s batching window a shard), plus its duration (docs/benchmarks.md); Lambda's reads of the stream are free; a re-stamp is ${CANCEL_WRITE_UNITS} write units,`,
    `$${n0(cancelMillion, 3)} per million re-stamps; its dead-letter queue costs nothing while empty. A v2 walk's last page reads the index-lag canary's record,`,
    `a strongly consistent GetItem, at most once a ${INDEX_CANARY.readerCacheMs / 1000} s per container: at most $${n0(((MONTH_SECONDS * 1000) / INDEX_CANARY.readerCacheMs) * (PRICES.dynamoReadPerMillion / 1e6), 2)} a month a container kept busy.`,
    `A steady flood of refused keys from one client address passes the web ACL at ${n0(ADDRESS_LIMIT.limit)} requests in ${ADDRESS_LIMIT.windowSeconds} s at most (${n0(flood.requestsPerDay / 1e6, 2)} million a day),`,
    `so it costs at most $${n0(flood.randomKeysPerDay, 2)} a day with random well-formed keys (each an inspection, an authorizer invocation and its key read; API Gateway bills no request`,
    `its authorizer refuses) or $${n0(flood.revokedKeyPerDay, 2)} with a revoked key whose cached Allow still reaches a handler (an inspection, a REST request, an invocation, the limiter's write),`,
    `plus their duration; every request past the limit is blocked and costs its inspection alone. A flood that pauses until it is let go and starts again passes,`,
    `each time, what the stage's throttle lets through in WAF's delay before blocking (usually under ${WAF_RATE_RULE.delaySeconds} s).`,
    `Not priced (no measured volume): API Gateway execution logs at INFO (several lines every request, $${PRICES.logsIngestGb} per GB ingested), function and access logs,`,
    `the EMF and log-filter metrics (by plan, cause and version: $${PRICES.customMetricMonth} each a month while published), Secrets Manager calls (two per v2 container start, the cursor key's`,
    `current and previous versions, and per release check, $${PRICES.secretCallsPer10k} per 10,000), X-Ray traces, and point-in-time recovery (billed on each table's own data, not its global indexes).`,
    '',
    orderStorageSentence(),
  ].join('\n');
}

/** Memory list-orders could be given: below, at and above one full vCPU. */
export const MEMORY_CHOICES_MB = [512, 1024, STREAMING_LIMITS.memoryMbPerVcpu, 2 * STREAMING_LIMITS.memoryMbPerVcpu];

/**
 * What each memory gives a listing, from the measured figures (docs/design.md's table): the prod
 * load's listing (its CPU time, its time on the wire, the slower of the two) and its month of
 * list-orders compute, and a store a tenth its size, whose listing Lambda streams mostly uncapped.
 */
export function memoryTable(figures: ListFigures): string {
  const f = figures.compressed;
  const orders = PROD_LOAD.storeOrders;
  const n1 = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
  const rows = MEMORY_CHOICES_MB.map((memoryMb) => {
    const large = listingTime(f, memoryMb, orders);
    const small = listingTime(f, memoryMb, orders / 10);
    const compute = PROD_LOAD.listingsPerMonth * large.seconds * (memoryMb / 1024) * PRICES.lambdaGbSecond;
    const deployed = memoryMb === LIST_SETTINGS.memoryMb ? ' (deployed)' : '';
    return `| ${n(memoryMb)} MB${deployed} | ${n1(large.cpuSeconds)} s / ${n1(large.wireSeconds)} s: **${n1(large.seconds)} s** | ${n1(small.seconds)} s | ${usd(compute)} |`;
  });
  return [
    `| list-orders memory | ${n(orders)}-order gzip listing: CPU / wire: its time | ${n(orders / 10)} orders | its compute a month at the prod load (${n(PROD_LOAD.listingsPerMonth)} listings) |`,
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
