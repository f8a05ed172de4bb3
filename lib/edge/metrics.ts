// Business metrics, declared once: the handlers emit them and the stage's dashboard graphs them.
// They are written as CloudWatch embedded metric format (EMF) lines in the function's log, so
// emitting one costs no API call; locally they are lines in the stack's output.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ERRORS } from '../contract/errors';
import { RATE_LIMIT_CODES } from '../contract/operations';
import { KEY_REFUSAL_CAUSES, type KeyRefusalCause } from '../stores/key-service';
import type { RejectionReason } from '../stores/rate-limiter';
import { PLAN_NAMES, type PlanName } from '../contract/plans';
import { ORDER_INDEXES } from '../contract/tables';
import { optionalEnv } from '../commons/env';
import { SERVICE_NAME } from '../commons/service';

export const METRICS_NAMESPACE = 'StoreOrders';
/** Set on each function by the stack; every metric carries it, so stages sharing an account stay apart. */
export const STAGE_ENV_VAR = 'STORE_ORDERS_STAGE';
/** The stage dimension's value when no stage is set: the local stack. */
export const LOCAL_STAGE = 'local';

/** Every metric carries these dimensions (Powertools adds `service`). */
export const COMMON_DIMENSIONS = ['service', 'stage'] as const;

/** The orders table's indexes, by name: the index-lag canary measures each. */
export const MEASURED_INDEXES = Object.values(ORDER_INDEXES).map((index) => index.name);

/** The cancel outcomes counted: cancelled, no such order, already shipped. */
export const CANCEL_OUTCOMES = [
  '204',
  String(ERRORS.ORDER_NOT_FOUND.status),
  String(ERRORS.ORDER_ALREADY_SHIPPED.status),
] as const;
export type CancelOutcome = (typeof CANCEL_OUTCOMES)[number];

export type MetricUnitName = (typeof MetricUnit)[keyof typeof MetricUnit];

export interface MetricDeclaration {
  name: string;
  unit: MetricUnitName;
  description: string;
  /** Each dimension of its own (besides the common ones) and every value it takes. */
  dimensions: Readonly<Record<string, readonly string[]>>;
}

export const BUSINESS_METRICS = {
  cancels: {
    name: 'CancelOutcomes',
    unit: MetricUnit.Count,
    description: 'Cancel requests by outcome: 204 cancelled, 404 no such order, 409 already shipped',
    dimensions: { outcome: CANCEL_OUTCOMES },
  },
  refusals: {
    name: 'RateLimitRefusals',
    unit: MetricUnit.Count,
    description: "Requests the service's limiter refused, by reason and plan",
    dimensions: { reason: RATE_LIMIT_CODES, plan: PLAN_NAMES },
  },
  bans: {
    name: 'KeyBans',
    unit: MetricUnit.Count,
    description: 'Keys banned for too many refused requests, by plan',
    dimensions: { plan: PLAN_NAMES },
  },
  listedOrders: {
    name: 'ListedOrders',
    unit: MetricUnit.Count,
    description: 'Orders in each complete listing',
    dimensions: {},
  },
  listedBytes: {
    name: 'ListedBytes',
    unit: MetricUnit.Bytes,
    description: 'JSON bytes of each complete listing, before any compression',
    dimensions: {},
  },
  listingResponseBytes: {
    name: 'ListingResponseBytes',
    unit: MetricUnit.Bytes,
    description:
      "Bytes of each listing's response body as sent (compressed when the client accepted it), complete or cut short by the client, a failure or the function deadline; Lambda cuts a response at 200 MB",
    dimensions: {},
  },
  authorizerRefusals: {
    name: 'AuthorizerRefusals',
    unit: MetricUnit.Count,
    description: 'Keys the authorizer refused, by cause (the key itself is never recorded)',
    dimensions: { cause: KEY_REFUSAL_CAUSES },
  },
  changesWatched: {
    name: 'ChangesWatched',
    unit: MetricUnit.Count,
    description: "Order changes the sync watch judged, a batch of the orders table's stream at a time",
    dimensions: {},
  },
  changeLateness: {
    name: 'ChangeLateness',
    unit: MetricUnit.Milliseconds,
    description:
      "Per stream batch, the most any change can have landed after its stamp (the stream's creation time is to the second, so up to 1 s less)",
    dimensions: {},
  },
  changesRestamped: {
    name: 'ChangesRestamped',
    unit: MetricUnit.Count,
    description: 'Changes that may have landed later than the walks allow for, re-stamped so later walks deliver them',
    dimensions: {},
  },
  changesStampedAhead: {
    name: 'ChangesStampedAhead',
    unit: MetricUnit.Count,
    description: "Changes stamped ahead of AWS's clock by more than the clock allowance: a writer's clock is off",
    dimensions: {},
  },
  webhookEvents: {
    name: 'WebhookEvents',
    unit: MetricUnit.Count,
    description: "Order changes that raised an event, a batch of the orders table's stream at a time (the fan-out)",
    dimensions: {},
  },
  webhookQueued: {
    name: 'WebhookDeliveriesQueued',
    unit: MetricUnit.Count,
    description: 'Deliveries the fan-out queued: each event once for every endpoint wanting it',
    dimensions: {},
  },
  webhookDelivered: {
    name: 'WebhookDelivered',
    unit: MetricUnit.Count,
    description: 'Delivery attempts the receiver acknowledged (2xx within the timeout)',
    dimensions: {},
  },
  webhookFailed: {
    name: 'WebhookFailed',
    unit: MetricUnit.Count,
    description:
      'Delivery attempts that failed (timeout, refused address, 3xx, 4xx but 410, 5xx): retried with backoff',
    dimensions: {},
  },
  webhookGone: {
    name: 'WebhookGone',
    unit: MetricUnit.Count,
    description: 'Delivery attempts answered 410 Gone: the endpoint is disabled',
    dimensions: {},
  },
  webhookSuperseded: {
    name: 'WebhookSuperseded',
    unit: MetricUnit.Count,
    description: 'Deliveries not sent: the receiver had acknowledged that change of the order or a later one',
    dimensions: {},
  },
  webhookWaits: {
    name: 'WebhookWaits',
    unit: MetricUnit.Count,
    description:
      "Deliveries queued again to wait: a retry's backoff, a failing endpoint's turn, another attempt of the order",
    dimensions: {},
  },
  webhookEventAge: {
    name: 'WebhookEventAge',
    unit: MetricUnit.Milliseconds,
    description: 'Per batch of the delivery queue, the most time from an order change to its acknowledgement',
    dimensions: {},
  },
  indexLagRestamps: {
    name: 'IndexLagRestamps',
    unit: MetricUnit.Count,
    description:
      'Orders the sync watch re-stamped sweeping an episode of index lag over the budget, so later walks deliver them',
    dimensions: {},
  },
  indexLag: {
    name: 'IndexLag',
    unit: MetricUnit.Milliseconds,
    description:
      "Per canary run and index, how long after its write the index showed the sentinel's probe (an unseen probe: how long it was read for)",
    dimensions: { index: MEASURED_INDEXES },
  },
} as const satisfies Record<string, MetricDeclaration>;

/** What one batch of the delivery queue came to: attempts by outcome, waits, the oldest change acknowledged. */
export interface DeliveredBatch {
  delivered: number;
  failed: number;
  gone: number;
  superseded: number;
  waits: number;
  /** The most time from an order change to its acknowledgement, when one was acknowledged. */
  eventAgeMaxMs?: number;
}

type MetricId = keyof typeof BUSINESS_METRICS;
type DimensionsOf<M extends MetricId> = { [D in keyof (typeof BUSINESS_METRICS)[M]['dimensions']]: string };

/**
 * Made on first use rather than at import, so that whoever starts the process (the local stack's
 * `--quiet`) can still set POWERTOOLS_METRICS_DISABLED, which Powertools reads when it is made.
 */
let metrics: Metrics | undefined;
function instance(): Metrics {
  metrics ??= new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: optionalEnv('POWERTOOLS_SERVICE_NAME') ?? SERVICE_NAME,
    defaultDimensions: { stage: optionalEnv(STAGE_ENV_VAR) ?? LOCAL_STAGE },
  });
  return metrics;
}

/**
 * One EMF line with the given metrics, which share the dimensions. Adding and publishing happen
 * in one synchronous step, so concurrent invocations (locally) never mix their metrics.
 */
function emit<M extends MetricId>(
  dimensions: DimensionsOf<M>,
  values: Partial<Record<MetricId, number>> & Record<M, number>,
): void {
  const m = instance();
  m.addDimensions(dimensions as Record<string, string>);
  for (const [id, value] of Object.entries(values) as [MetricId, number][]) {
    m.addMetric(BUSINESS_METRICS[id].name, BUSINESS_METRICS[id].unit, value);
  }
  m.publishStoredMetrics();
}

export const businessMetrics = {
  cancel(outcome: number): void {
    const text = String(outcome);
    if ((CANCEL_OUTCOMES as readonly string[]).includes(text)) emit<'cancels'>({ outcome: text }, { cancels: 1 });
  },
  refusal(reason: RejectionReason, plan: PlanName): void {
    emit<'refusals'>({ reason, plan }, { refusals: 1 });
  },
  ban(plan: PlanName): void {
    emit<'bans'>({ plan }, { bans: 1 });
  },
  listing(orders: number, bytes: number): void {
    emit<'listedOrders' | 'listedBytes'>({}, { listedOrders: orders, listedBytes: bytes });
  },
  listingResponse(bytes: number): void {
    emit<'listingResponseBytes'>({}, { listingResponseBytes: bytes });
  },
  authorizerRefusal(cause: KeyRefusalCause): void {
    emit<'authorizerRefusals'>({ cause }, { authorizerRefusals: 1 });
  },
  /** One stream batch's watch: its lateness only when it judged a change. */
  syncWatch(batch: {
    watched: number;
    latenessMaxMs?: number;
    restamped: number;
    stampedAhead: number;
    swept: number;
  }): void {
    const counts = {
      changesWatched: batch.watched,
      changesRestamped: batch.restamped,
      changesStampedAhead: batch.stampedAhead,
      indexLagRestamps: batch.swept,
    };
    if (batch.latenessMaxMs === undefined) emit<keyof typeof counts>({}, counts);
    else emit<keyof typeof counts | 'changeLateness'>({}, { ...counts, changeLateness: batch.latenessMaxMs });
  },
  /** One stream batch's fan-out. */
  webhookFanout(batch: { events: number; queued: number }): void {
    emit<'webhookEvents' | 'webhookQueued'>({}, { webhookEvents: batch.events, webhookQueued: batch.queued });
  },
  /** One queue batch's deliveries: attempts by outcome, waits, and the oldest change acknowledged. */
  webhookDeliveries(batch: DeliveredBatch): void {
    const counts = {
      webhookDelivered: batch.delivered,
      webhookFailed: batch.failed,
      webhookGone: batch.gone,
      webhookSuperseded: batch.superseded,
      webhookWaits: batch.waits,
    };
    if (batch.eventAgeMaxMs === undefined) emit<keyof typeof counts>({}, counts);
    else emit<keyof typeof counts | 'webhookEventAge'>({}, { ...counts, webhookEventAge: batch.eventAgeMaxMs });
  },
  /** One canary run: each index's lag (or how long an unseen probe was read for), a line each. */
  indexLag(lagByIndex: Readonly<Record<string, number>>): void {
    for (const [index, lagMs] of Object.entries(lagByIndex)) emit<'indexLag'>({ index }, { indexLag: lagMs });
  },
};
