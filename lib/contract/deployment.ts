// The deployment contract, declared once and free of the CDK: each function's settings, the stages
// with their stack names, and the stack outputs. The CDK app (infra/) deploys them; the tools read
// them (the local gateway gives each handler the same Lambda context and deadline, the admin,
// deploy and smoke commands find a stage's stack and outputs), and so does the bench.
import type { PlanName } from './plans';
import type { FunctionName } from './routes';
import { INDEX_CANARY } from './index-canary';
import { STREAMING_LIMITS } from './streaming-limits';
import { SYNC_TIMING, type SyncTiming } from './sync';
import { ORDER_INDEXES, WEBHOOK_ENDPOINT_INDEXES, type TableId } from './tables';
import { WEBHOOK_DELIVERY } from './webhook-delivery';

/** The functions behind the APIs: the route functions and the authorizer, each released by CodeDeploy. */
export type FunctionId = FunctionName | 'authorizer';

/** The functions a table's change stream invokes, through an event source mapping (STREAM_MAPPINGS). */
export type StreamFunctionId = 'sync-watch' | 'webhook-fanout';

/** The functions an SQS queue invokes, through an event source mapping (QUEUE_MAPPINGS). */
export type QueueFunctionId = 'webhook-delivery';

/** The functions a schedule invokes (SCHEDULES). */
export type ScheduledFunctionId = 'index-canary';

/** Every Lambda entry: each has `functions/<id>.ts` and its settings in FUNCTIONS. */
export type EntryId = FunctionId | StreamFunctionId | QueueFunctionId | ScheduledFunctionId;

/** The only DynamoDB actions the service's functions use; anything else is not grantable. */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:Scan'
  | 'dynamodb:Query'
  | 'dynamodb:DescribeTable';
/**
 * Query on one of a table's declared indexes, by name: the grant names that index, never `index/*`.
 * (`dynamodb:Query` alone is on the table itself: the items of one partition.)
 */
export type IndexQuery = `dynamodb:Query index/${string}`;
export const INDEX_QUERY_PREFIX = 'dynamodb:Query index/';
export const queryIndex = (name: string): IndexQuery => `${INDEX_QUERY_PREFIX}${name}`;
export type TableAccess = Partial<Record<TableId, readonly (TableAction | IndexQuery)[]>>;

export interface FunctionSettings {
  description: string;
  /** Lambda memory in MB; CPU scales with it. */
  memoryMb: number;
  /** Below the integration timeout, so the handler (not API Gateway) decides what a slow call returns. */
  timeoutSeconds: number;
  /** The tables the function reads or writes, with exactly the actions its code sends. */
  access: TableAccess;
  /**
   * The most its minified bundle may weigh, in KiB (checked by the bundle test): module loading is
   * most of a cold start, so growing past it is a decision made here, not an accident.
   */
  bundleBudgetKib: number;
  /**
   * V8 flags node starts with, through the wrapper in infra/runtime (NODE_OPTIONS cannot carry
   * them): right after node, the runtime's own setting of the same flag left out, so they win.
   * None unless a measurement asks for them.
   */
  nodeFlags?: readonly string[];
}

const RATE_LIMIT_COUNTERS = ['dynamodb:UpdateItem', 'dynamodb:GetItem'] as const;

export const FUNCTIONS: Record<EntryId, FunctionSettings> = {
  authorizer: {
    description: 'Bearer API key authorizer: one key lookup, answer cached by API Gateway',
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { apiKeys: ['dynamodb:GetItem'] },
    bundleBudgetKib: 450,
  },
  'list-orders': {
    description: 'GET /store/orders: streams every order',
    // One vCPU, and time for the largest compressed response Lambda allows: infra/list-budget.ts
    // derives both from the measured throughput (bench/results.json) and Lambda's streaming
    // limits, and test/unit/list-budget.spec.ts fails when these stop being what it derives.
    memoryMb: STREAMING_LIMITS.memoryMbPerVcpu,
    timeoutSeconds: 420,
    // DescribeTable: the item count sizes the parallel Scan and refuses an uncompressed listing too
    // large for one response, read at most once an hour. PutItem: the in-flight slots (taken, then given back with a release mark).
    // BatchGetItem: the store-growth counters an uncompressed listing adds to that count (lib/stores/store-growth.ts).
    access: {
      orders: ['dynamodb:Scan', 'dynamodb:DescribeTable'],
      rateLimits: [...RATE_LIMIT_COUNTERS, 'dynamodb:PutItem', 'dynamodb:BatchGetItem'],
    },
    bundleBudgetKib: 480,
    // A listing allocates at a steady rate for minutes; with the runtime's 88 MB semi-space V8
    // grows its young generation the longer a listing runs, so the peak grew with the table (+150 %
    // from 20k to 1M orders). This V8 flag keeps the semi-space at 1 MB and the heap's growth
    // modest, so memory stays flat with table size, at a CPU cost the budget (list-budget.ts) counts.
    nodeFlags: ['--optimize-for-size'],
  },
  'cancel-order': {
    description: 'DELETE /store/orders/{orderId}: cancels a pending order',
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { orders: ['dynamodb:UpdateItem', 'dynamodb:GetItem'], rateLimits: RATE_LIMIT_COUNTERS },
    bundleBudgetKib: 480,
  },
  'get-pet': {
    description: 'GET /pets/{petId} (deprecated): one pet, read from the pets table',
    memoryMb: 256,
    timeoutSeconds: 10,
    // Read-only on its own table: the deprecated route can change nothing.
    access: { pets: ['dynamodb:GetItem'], rateLimits: RATE_LIMIT_COUNTERS },
    bundleBudgetKib: 480,
  },
  'list-orders-v2': {
    description: 'GET /v2/store/orders (beta): one page of orders, filtered by status or updatedSince',
    memoryMb: 256,
    timeoutSeconds: 10,
    // Read-only on orders: Scan for unfiltered pages, Query on the indexes, GetItem of the index-lag
    // canary's record (the sentinel) for a walk's watermark.
    access: {
      orders: [
        'dynamodb:Scan',
        'dynamodb:GetItem',
        ...Object.values(ORDER_INDEXES).map((index) => queryIndex(index.name)),
      ],
      rateLimits: RATE_LIMIT_COUNTERS,
    },
    bundleBudgetKib: 480,
  },
  'webhook-endpoints': {
    description:
      "v2 (beta) /webhook-endpoints: a key's webhook endpoints, registered, listed, deleted, their secrets rotated",
    memoryMb: 256,
    timeoutSeconds: 10,
    // Its own table: Query reads the caller's partition, GetItem a tombstone; the writes create,
    // rotate and delete. The deliveries log: Query of one endpoint's attempts. Nothing of orders or
    // keys. (Its test route queues an event: SendMessage on the delivery queue, granted by the stack.)
    access: {
      webhookEndpoints: [
        'dynamodb:Query',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
      ],
      webhookDeliveries: ['dynamodb:Query'],
      rateLimits: RATE_LIMIT_COUNTERS,
    },
    bundleBudgetKib: 480,
  },
  'sync-watch': {
    description: "The orders table's stream: how late each change landed; re-stamps an order a walk could have missed",
    memoryMb: 256,
    // A batch is a few conditional writes at most, each a stamped write of up to 3 attempts cut at
    // the per-attempt timeout (lib/stores/stamped-write.ts): well inside, and counted in the repair time.
    timeoutSeconds: 30,
    // UpdateItem: the conditional re-stamp (lib/stores/order-restamps.ts); Query on by-update: the
    // sweep of an episode of index lag (lib/stores/index-lag-repair.ts). Reading the stream is
    // granted with its event source mapping (infra/constructs/change-stream.ts).
    access: { orders: ['dynamodb:UpdateItem', queryIndex(ORDER_INDEXES.byUpdate.name)] },
    bundleBudgetKib: 480,
  },
  'webhook-fanout': {
    description: "The orders table's stream: each change's order event, queued once for every endpoint that wants it",
    memoryMb: 256,
    // A batch is one cached read of the enabled endpoints and SendMessageBatch calls of 10 deliveries.
    timeoutSeconds: 30,
    // The sparse index of enabled endpoints (never a secret); it only enqueues (SendMessage on the
    // delivery queue, granted by the stack). Reading the stream is its event source mapping's grant.
    access: { webhookEndpoints: [queryIndex(WEBHOOK_ENDPOINT_INDEXES.enabled.name)] },
    bundleBudgetKib: 480,
  },
  'webhook-delivery': {
    description: 'Order events: one signed POST per queued delivery, retried with backoff for 3 days',
    memoryMb: 256,
    // A batch's deliveries run at once, each within its lease (WEBHOOK_DELIVERY.leaseMs) and a few
    // DynamoDB writes: well inside.
    timeoutSeconds: 30,
    // Endpoints: GetItem reads one before each attempt, UpdateItem disables it or records its
    // failures. Deliveries: the order's lease and acknowledged change (UpdateItem, GetItem where a
    // failed condition brings no item back) and the log (PutItem). Re-sends to its own queue
    // (SendMessage) are granted by the stack with the queue.
    access: {
      webhookEndpoints: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      webhookDeliveries: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
    },
    bundleBudgetKib: 480,
  },
  'index-canary': {
    description:
      "Every minute: a probe on the orders table's sentinel read back through each index; the lag is a metric",
    memoryMb: 256,
    // Its read-back (INDEX_CANARY.readBackMs) and its writes, within a period: runs never overlap.
    timeoutSeconds: 55,
    // The sentinel alone: GetItem of its record, UpdateItem of its probe and record, Query of its
    // partition in each index (lib/stores/index-canary.ts).
    access: {
      orders: [
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        ...Object.values(ORDER_INDEXES).map((index) => queryIndex(index.name)),
      ],
    },
    bundleBudgetKib: 480,
  },
};

/**
 * The functions a schedule runs (EventBridge Scheduler, infra/constructs/index-canary.ts; the local
 * stack's tools/local/schedule.ts): every `periodSeconds`.
 */
export const SCHEDULES: Record<ScheduledFunctionId, { periodSeconds: number }> = {
  'index-canary': { periodSeconds: INDEX_CANARY.periodSeconds },
};

/**
 * How Lambda's event source mapping feeds a stream function, declared once: the stack deploys it
 * (AWS::Lambda::EventSourceMapping), the local stack emulates it (tools/local/stream-mapping.ts).
 * AWS's parameters: docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html.
 */
export interface StreamMapping {
  /** The table whose stream it reads. */
  table: TableId;
  /** Records per invocation at most (DynamoDB: 1 to 10,000; CDK allows 1,000). */
  batchSize: number;
  /** How long records are gathered before an invocation (MaximumBatchingWindowInSeconds). */
  batchingWindowSeconds: number;
  /** Retries of a failed batch before its records go to the on-failure destination (MaximumRetryAttempts). */
  retryAttempts: number;
  /** A record older than this goes to the on-failure destination unread (MaximumRecordAgeInSeconds). */
  maxRecordAgeSeconds: number;
  /** A failed batch is split in two and each half retried (BisectBatchOnFunctionError); no retry is used up. */
  bisectOnError: boolean;
  /** The function names the first record it failed (FunctionResponseTypes ReportBatchItemFailures). */
  reportBatchItemFailures: boolean;
  /** TRIM_HORIZON: a new mapping reads the 24 hours the stream keeps, so no change goes unread. */
  startingPosition: 'TRIM_HORIZON' | 'LATEST';
  /**
   * IteratorAge (how long a record waited in the stream before its batch was sent) past which the
   * function is alarmed on as behind: the repair time counts it (syncRepairMs).
   */
  iteratorAgeAlarmSeconds: number;
}

export const STREAM_MAPPINGS: Record<StreamFunctionId, StreamMapping> = {
  'sync-watch': {
    table: 'orders',
    batchSize: 100,
    // At most about one invocation a second per shard when changes trickle in; a second of repair delay.
    batchingWindowSeconds: 1,
    retryAttempts: 20,
    maxRecordAgeSeconds: 6 * 3600,
    bisectOnError: true,
    reportBatchItemFailures: true,
    startingPosition: 'TRIM_HORIZON',
    iteratorAgeAlarmSeconds: 30,
  },
  // Event delivery's fan-out: it only enqueues, so a batch fails only when SQS refuses a send.
  'webhook-fanout': {
    table: 'orders',
    batchSize: 100,
    // A second at most between a change and its deliveries being queued, while changes trickle in.
    batchingWindowSeconds: 1,
    retryAttempts: 20,
    // Past it the changes are not queued (the dead-letter queue says which); `webhooks replay` resends them.
    maxRecordAgeSeconds: 6 * 3600,
    bisectOnError: true,
    reportBatchItemFailures: true,
    startingPosition: 'TRIM_HORIZON',
    iteratorAgeAlarmSeconds: 60,
  },
};

/**
 * How Lambda's event source mapping feeds a queue's function, and the queue itself, declared once:
 * the stack deploys them (AWS::SQS::Queue with its dead-letter queue, AWS::Lambda::EventSourceMapping),
 * the local stack emulates both (tools/local/delivery-queue.ts). AWS:
 * docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html, services-sqs-scaling.html.
 */
export interface QueueMapping {
  /** Messages per invocation (1 to 10 without a batching window). */
  batchSize: number;
  /** Invocations the mapping makes at once, at most (MaximumConcurrency: 2 to 1,000). */
  maxConcurrency: number;
  /** The queue's visibility timeout: at least 6 times the function's timeout, as AWS advises. */
  visibilityTimeoutSeconds: number;
  /** Receives without a deletion before a message moves to the dead-letter queue (maxReceiveCount). */
  maxReceiveCount: number;
  /** How long the queue and its dead-letter queue keep a message (SQS: 14 days at most). */
  retentionSeconds: number;
  /**
   * ApproximateAgeOfOldestMessage past which the worker is alarmed on as behind: a waiting delivery
   * hops at most every maxHopMs (SQS's 15-minute timer), so older means no worker took it.
   */
  ageAlarmSeconds: number;
}

export const QUEUE_MAPPINGS: Record<QueueFunctionId, QueueMapping> = {
  'webhook-delivery': {
    batchSize: 10,
    // At most 200 attempts in flight: a slow receiver (10 s an attempt) holds a bounded share.
    maxConcurrency: 20,
    visibilityTimeoutSeconds: 6 * 30,
    // The worker deletes every message it handled, re-sending one that waits: only an invocation that
    // crashes or times out leaves a message to be received again.
    maxReceiveCount: 5,
    retentionSeconds: 14 * 24 * 3600,
    ageAlarmSeconds: WEBHOOK_DELIVERY.maxHopMs / 1000 + 5 * 60,
  },
};

/**
 * How long after a change landed late (any lateness) a replica following the sync loop has it:
 * the stream hands it to the sync watch within the IteratorAge the watch is alarmed on, the watch
 * re-stamps it within its timeout, and a walk starting freshnessMs after the re-stamp delivers it.
 */
export function syncRepairMs(timing: SyncTiming = SYNC_TIMING): number {
  const watch = STREAM_MAPPINGS['sync-watch'];
  return (watch.iteratorAgeAlarmSeconds + FUNCTIONS['sync-watch'].timeoutSeconds) * 1000 + timing.freshnessMs;
}

/**
 * How long after the indexes are back within the budget (every write reaching them within
 * indexLagMs again) a replica following the sync loop has every change that landed while they lagged
 * more (docs/design.md#the-index-lag-canary): the canary's next run (a period and its lateness) sees
 * its probe back, ending the episode; the run after it (another) asks for the episode's second sweep,
 * which finds every change still on its way at the first; the stream hands that request to the sync
 * watch within the IteratorAge it is alarmed on and the watch re-stamps within its timeout; a walk
 * starting freshnessMs later delivers the re-stamps, once the walks' hold (a measurement's, in force
 * up to the read-back time past a period and its lateness) is over.
 */
export function indexLagRepairMs(timing: SyncTiming = SYNC_TIMING): number {
  const run = INDEX_CANARY.periodSeconds * 1000 + INDEX_CANARY.lateAllowanceMs;
  return 2 * run + INDEX_CANARY.readBackMs + syncRepairMs(timing);
}

/** Seconds between a streamed function's timeout and its integration timeout, so the function always stops first. */
export const STREAMING_INTEGRATION_HEADROOM_SECONDS = 5;

/** API Gateway's default (and, for buffered responses, maximum) integration timeout. */
const BUFFERED_INTEGRATION_TIMEOUT_SECONDS = 29;

/** How long API Gateway waits for a route's function: buffered answers are capped at 29 s. */
export function integrationTimeoutSeconds(id: FunctionName, streaming: boolean): number {
  return streaming
    ? FUNCTIONS[id].timeoutSeconds + STREAMING_INTEGRATION_HEADROOM_SECONDS
    : BUFFERED_INTEGRATION_TIMEOUT_SECONDS;
}

export const STAGE_NAMES = ['staging', 'prod'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export function isStageName(value: unknown): value is StageName {
  return typeof value === 'string' && (STAGE_NAMES as readonly string[]).includes(value);
}

export function stackNameFor(stage: StageName): string {
  return `StoreOrders-${stage}`;
}

/**
 * The CDK bootstrap qualifier of a stage's stack: each stage has a bootstrap of its own, so its own
 * CloudFormation execution role with its own policy, even in an account both stages share (one
 * bootstrap has one execution role per qualifier: the bootstrap template's CloudFormationExecutionRole,
 * `cdk-${Qualifier}-cfn-exec-role-...`). At most 10 characters (the template's AllowedPattern).
 */
export function bootstrapQualifierFor(stage: StageName): string {
  return `so-${stage}`;
}

/** The stack `cdk bootstrap --qualifier` makes for a stage: one name per qualifier in an account and Region. */
export function toolkitStackNameFor(stage: StageName): string {
  return `CDKToolkit-${bootstrapQualifierFor(stage)}`;
}

/**
 * Concurrent executions each stage reserves for list-orders (infra/stages.ts deploys them; the
 * deploy preflight checks that the account's unreserved concurrency holds the stage's, plus the 100 Lambda keeps unreserved).
 */
export const LIST_ORDERS_RESERVED_CONCURRENCY: Record<StageName, number> = { staging: 5, prod: 50 };

/**
 * Stages whose alarms must notify someone: `npm run deploy|diff` of them refuses to start without an
 * alarm topic (tools/deploy/notification.ts); `cdk synth` works without one.
 */
export const ALARM_TOPIC_REQUIRED: Record<StageName, boolean> = { staging: false, prod: true };

/** The environment variable naming the SNS topic a stage's alarms notify: `PROD_ALARM_TOPIC_ARN`. */
export function alarmTopicVariable(stage: StageName): string {
  return `${stage.toUpperCase()}_ALARM_TOPIC_ARN`;
}

const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

/** A malformed alarm topic variable: a command-line mistake, reported as one line. */
export class AlarmTopicError extends Error {}

/** The stage's alarm topic from the environment; undefined when unset or empty, refused when not a topic ARN. */
export function alarmTopicArn(stage: StageName, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = env[alarmTopicVariable(stage)]?.trim();
  if (!value) return undefined;
  if (SNS_TOPIC_ARN.test(value)) return value;
  throw new AlarmTopicError(
    `${alarmTopicVariable(stage)}=${value} is not an SNS topic ARN: give arn:aws:sns:<region>:<account>:<topic name>.`,
  );
}

/**
 * The timeout of each release hook (infra/constructs/release-hook.ts deploys it): the hook bounds
 * every call it makes from it and reports before it runs out (infra/release-hook/handler.ts).
 */
export const RELEASE_HOOK_TIMEOUT_SECONDS = 60;

/** A function name no stage deploys: the deploy preflight invokes it to learn whether the Region streams. */
export const STREAMING_PROBE_FUNCTION = 'store-orders-streaming-probe';

/** The stack that owns API Gateway's account-wide settings, shared by the stages of an account. */
export const ACCOUNT_STACK_NAME = 'StoreOrders-account';

// Stack outputs, read from a deployed stage by CloudFormation DescribeStacks (the admin command's
// `--stage`, the smoke run).

/** The base URL clients use: the custom domain when one is configured, else the execute-api URL. */
export const API_URL_OUTPUT = 'ApiUrl';
export const EXECUTE_API_URL_OUTPUT = 'ExecuteApiUrl';
export const REST_API_ID_OUTPUT = 'RestApiId';
/**
 * v2 (beta) is a RestApi of its own (stage v2): its base URL, `/v2/` beside v1's `/v1/` on a custom
 * domain, else its execute-api URL, whose host (API id) is not v1's.
 */
export const V2_API_URL_OUTPUT = 'V2ApiUrl';
export const V2_EXECUTE_API_URL_OUTPUT = 'V2ExecuteApiUrl';
export const V2_REST_API_ID_OUTPUT = 'V2RestApiId';
/** The stage's CloudWatch dashboard in the console. */
export const DASHBOARD_URL_OUTPUT = 'DashboardUrl';
/** The account stack's output naming the role API Gateway's execution logging uses. */
export const CLOUDWATCH_ROLE_OUTPUT = 'ApiGatewayCloudWatchRoleArn';

/**
 * The output naming the secret that holds the stage's release canary key: a real key the
 * authorizer's pre-traffic hook authorizes (docs/operations.md#the-release-canary-key).
 */
export const CANARY_KEY_SECRET_OUTPUT = 'ReleaseCanaryKeySecretArn';
/**
 * The tag the stack puts on that secret, its value the stage: the pipeline's deploy role may read
 * and store the secret tagged with its own stage, and no other secret (infra/pipeline/permissions.ts).
 */
export const CANARY_KEY_SECRET_TAG = 'store-orders:release-canary-key';
/** The admin command that creates a stage's canary key and stores it in that secret. */
export const CANARY_KEY_COMMAND = 'canary-key create';

/** The admin command line that does it for `stage`, as messages and docs give it. */
export function canaryKeyCommandLine(stage: StageName | '<stage>'): string {
  return `npm run --silent admin -- --stage ${stage} ${CANARY_KEY_COMMAND}`;
}

/** Output keys must be alphanumeric, so they are spelled out rather than derived from table ids. */
export const TABLE_NAME_OUTPUTS: Record<TableId, string> = {
  orders: 'OrdersTableName',
  pets: 'PetsTableName',
  apiKeys: 'ApiKeysTableName',
  rateLimits: 'RateLimitsTableName',
  webhookEndpoints: 'WebhookEndpointsTableName',
  webhookDeliveries: 'WebhookDeliveriesTableName',
};

/** The delivery queue's URL, which the admin command's `webhooks replay` and `webhooks test` send to. */
export const WEBHOOK_QUEUE_URL_OUTPUT = 'WebhookDeliveryQueueUrl';
/** The environment variable that gives a function the delivery queue's URL. */
export const WEBHOOK_QUEUE_URL_ENV = 'WEBHOOK_DELIVERY_QUEUE_URL';

export const USAGE_PLAN_ID_OUTPUTS: Record<PlanName, string> = {
  free: 'UsagePlanIdFree',
  pro: 'UsagePlanIdPro',
  business: 'UsagePlanIdBusiness',
  enterprise: 'UsagePlanIdEnterprise',
};

export function isFunctionId(value: unknown): value is FunctionId {
  return (
    typeof value === 'string' &&
    Object.hasOwn(FUNCTIONS, value) &&
    !Object.hasOwn(STREAM_MAPPINGS, value) &&
    !Object.hasOwn(QUEUE_MAPPINGS, value) &&
    !Object.hasOwn(SCHEDULES, value)
  );
}

/**
 * Listings in flight across the whole stage: below list-orders' reserved concurrency, so a listing
 * over the cap still gets an execution, to answer 503 SERVICE_UNAVAILABLE with Retry-After, instead
 * of Lambda throttling it into API Gateway's INTEGRATION_FAILURE. The headroom is a tenth of the
 * reservation, at least one execution.
 */
export function stageListingsCap(listOrdersReservedConcurrency: number): number {
  return Math.max(1, listOrdersReservedConcurrency - Math.max(1, Math.ceil(listOrdersReservedConcurrency / 10)));
}

/** The environment variable that gives list-orders the stage's cap on listings in flight. */
export const STAGE_LISTINGS_CAP_ENV_VAR = 'STAGE_LISTINGS_CAP';
