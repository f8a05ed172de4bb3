import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { composeService, routeHandlers, type Stores, type Wiring } from '../../lib/root/service';
import { documentClient, walkSettleMsOf } from '../../lib/root/wiring';
import { ROUTES, V2_ROUTES, type Route } from '../../lib/contract/routes';
import { QUEUE_MAPPINGS, SCHEDULES, STREAM_MAPPINGS, type StreamFunctionId } from '../../lib/contract/deployment';
import { indexCanaryHandler } from '../../lib/root/handlers';
import type { TableNames } from '../../lib/contract/tables';
import type { StreamingLambdaHandler } from '../../lib/edge/api-handler';
import { createLocalGateway, type LocalGatewayOptions } from './gateway';
import type { ChangeStream } from './change-stream';
import type { ProxyHandler } from './invoke';
import { installLocalLambdaRuntime } from './lambda-streaming';
import { lambdaContext } from './proxy-event';
import { EventSourceMapping, type StreamHandler } from './stream-mapping';
import { LocalSchedule } from './schedule';
import { LOCAL_STACK_RULES } from '../../lib/core/webhooks/url-rules';
import { createSqsClient, SqsDeliveryQueue, type DeliveryQueue } from '../../lib/stores/webhook-queue';
import { LocalQueue, QueueEventSourceMapping, type LocalQueueOptions } from './delivery-queue';
import { lazySqsEndpoint } from './sqs-endpoint';

type GatewaySettings = 'publicRoutes' | 'onAccessLog' | 'functions' | 'receiveLimits' | 'addressLimit';
export type LocalAppOptions = Pick<
  Wiring,
  | 'requestTimeoutMs'
  | 'now'
  | 'stageListingsCap'
  | 'timers'
  | 'syncTiming'
  | 'webhookDestinations'
  | 'webhookFailRate'
  | 'random'
> &
  Partial<Pick<LocalGatewayOptions, GatewaySettings>> & {
    endpoint: string;
    tables: TableNames;
    /** The v2 cursors' HMAC key, or keys read as a deployed function reads them; a random key per app when absent. */
    cursorKey?: Wiring['cursorKey'];
    /** Extra routes and their handlers, e.g. a deprecated fixture route in tests. */
    extraRoutes?: { route: Route; handler: ProxyHandler | StreamingLambdaHandler }[];
    /**
     * The embedded server's change streams: each stream function (the sync watch) then reads its
     * table's stream through an emulated event source mapping, on real timers unless the app runs
     * on a given clock (tests deliver its batches themselves, deliverDue).
     */
    changeStream?: ChangeStream;
    /** The emulated delivery queue's duplicates and randomness (tests); none and Math.random by default. */
    deliveryQueue?: Pick<LocalQueueOptions, 'duplicateRate' | 'random'>;
    /**
     * Run the index-lag canary every minute on the stack's clock, as EventBridge Scheduler runs it
     * (tools/local/schedule.ts), and let the v2 walks hold their watermark back by what it measures.
     * `npm start` does; a test stack without it trusts the declared index lag, as walks did before.
     */
    indexCanary?: boolean;
  };

/** The emulated delivery queue, its event source mapping, and the URL it is served at over SQS's protocol. */
export interface LocalWebhookQueue {
  queue: LocalQueue;
  mapping: QueueEventSourceMapping;
  /** Starts the queue's SQS endpoint on first call (the state file and the admin command send to it). */
  queueUrl(): Promise<string>;
}

/** The local stack: the service as the composition root makes it, behind the local gateway. */
export function createLocalApp(options: LocalAppOptions): Stores & {
  server: Server;
  /** The stores' DynamoDB client (tests count its calls). */ dynamo: DynamoDBDocumentClient;
  /** How far a v2 walk's watermark stands behind its start on this stack (lib/contract/sync.ts settleMs). */
  settleMs: number;
  /** Each stream function's event source mapping, when the app was given a change stream. */
  streamMappings: Partial<Record<StreamFunctionId, EventSourceMapping>>;
  webhookQueue: LocalWebhookQueue;
  /** The index-lag canary's schedule, when the app runs it. */
  indexCanary: LocalSchedule | undefined;
} {
  const { extraRoutes = [], publicRoutes = [], changeStream, deliveryQueue, indexCanary, ...rest } = options;
  const { onAccessLog, functions, receiveLimits, addressLimit, ...settings } = rest;
  // Streamed handlers need the runtime's `awslambda` global when they are made.
  installLocalLambdaRuntime();
  const now = options.now ?? Date.now;
  // The delivery queue as SQS: sent to through the SDK over SQS's protocol, read by its mapping.
  const queue = new LocalQueue({ settings: QUEUE_MAPPINGS['webhook-delivery'], now, ...deliveryQueue });
  const endpoint = lazySqsEndpoint(queue);
  let sqs: Promise<DeliveryQueue> | undefined;
  const sending: DeliveryQueue = {
    send: async (deliveries) =>
      (
        await (sqs ??= endpoint
          .queueUrl()
          .then((url) => new SqsDeliveryQueue(createSqsClient({ endpoint: new URL(url).origin }), url)))
      ).send(deliveries),
  };
  const wiring: Wiring = {
    ...settings,
    cursorKey: settings.cursorKey ?? randomBytes(32),
    // The local stack's allowance: webhook endpoints may be loopback URLs, http included.
    webhookDestinations: { rules: LOCAL_STACK_RULES, ...settings.webhookDestinations },
    webhookQueue: sending,
    ...(indexCanary ? {} : { trustDeclaredIndexLag: true }),
  };
  const service = composeService(wiring);
  const server = createLocalGateway({
    routes: [...ROUTES, ...V2_ROUTES, ...extraRoutes.map((extra) => extra.route)],
    handlers: {
      ...routeHandlers(service),
      ...Object.fromEntries(extraRoutes.map((extra) => [extra.route.operationId, extra.handler])),
    },
    authorizer: service.authorizer,
    publicRoutes,
    now: settings.now,
    onAccessLog,
    functions,
    receiveLimits,
    addressLimit,
    ...(settings.timers ? { timers: settings.timers } : {}),
  });
  const consumers: Record<StreamFunctionId, StreamHandler> = {
    'sync-watch': service.syncWatch,
    'webhook-fanout': service.webhookFanout,
  };
  const streamMappings: Partial<Record<StreamFunctionId, EventSourceMapping>> = {};
  for (const id of Object.keys(consumers) as StreamFunctionId[]) {
    if (changeStream === undefined) break;
    const settings = STREAM_MAPPINGS[id];
    streamMappings[id] = new EventSourceMapping(changeStream, options.tables[settings.table], {
      settings,
      handler: consumers[id],
      context: () => lambdaContext(id, { now }),
      now,
      autoDeliver: options.now === undefined,
    });
  }
  const mapping = new QueueEventSourceMapping(queue, {
    settings: QUEUE_MAPPINGS['webhook-delivery'],
    handler: service.webhookDelivery,
    context: () => lambdaContext('webhook-delivery', { now }),
    now,
    autoDeliver: options.now === undefined,
  });
  server.once('close', () => {
    mapping.close();
    endpoint.close();
  });
  // The canary's handler gets the schedule's sleep: on a virtual clock the test moves time through its read-back.
  let canaryRun: ReturnType<typeof indexCanaryHandler> | undefined;
  const schedule =
    indexCanary === true
      ? new LocalSchedule({
          periodMs: SCHEDULES['index-canary'].periodSeconds * 1000,
          now,
          autoRun: options.now === undefined,
          run: (sleep) => {
            canaryRun ??= indexCanaryHandler(wiring, sleep);
            return canaryRun({}, lambdaContext('index-canary', { now }));
          },
        })
      : undefined;
  return {
    server,
    ...service.stores,
    dynamo: documentClient(wiring),
    settleMs: walkSettleMsOf(wiring),
    streamMappings,
    webhookQueue: { queue, mapping, queueUrl: endpoint.queueUrl },
    indexCanary: schedule,
  };
}
