import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib/core';
import type { Method } from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { TABLES, type TableId } from '../lib/contract/tables';
import { ROUTES, V2_ROUTES, type OperationId, type Route } from '../lib/contract/routes';
import { CURSOR_KEY_SECRET_ENV, CURSOR_KEY_SECRET_OUTPUT } from '../lib/contract/sync';
import { SECRET_READ_ACTION } from '../lib/contract/secrets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { PLAN_NAMES } from '../lib/contract/plans';
import {
  API_URL_OUTPUT,
  DASHBOARD_URL_OUTPUT,
  EXECUTE_API_URL_OUTPUT,
  FUNCTIONS,
  REST_API_ID_OUTPUT,
  CANARY_KEY_SECRET_OUTPUT,
  STAGE_LISTINGS_CAP_ENV_VAR,
  stageListingsCap,
  SCHEDULES,
  STREAM_MAPPINGS,
  TABLE_NAME_OUTPUTS,
  USAGE_PLAN_ID_OUTPUTS,
  V2_API_URL_OUTPUT,
  V2_EXECUTE_API_URL_OUTPUT,
  V2_REST_API_ID_OUTPUT,
  WEBHOOK_QUEUE_URL_OUTPUT,
  type EntryId,
} from '../lib/contract/deployment';
import { StreamConsumer } from './constructs/change-stream';
import { WebhookDelivery } from './constructs/webhook-delivery';
import { IndexCanarySchedule } from './constructs/index-canary';
import { OrdersApi } from './constructs/orders-api';
import { AddressFirewall } from './constructs/address-firewall';
import { pascalCase } from './constructs/names';
import { ServiceAlarms } from './constructs/service-alarms';
import { ServiceDashboard } from './constructs/service-dashboard';
import { ServiceFunction } from './constructs/service-function';
import { ServiceReleases } from './constructs/service-releases';
import { ServiceTables } from './constructs/service-tables';
import { explainCursorKeyFindings, explainNagFindings } from './nag';
import { tagRetainedData } from './retained-data';
import { validateConfig, type StageConfig } from './stages';

export interface StoreOrdersStackProps extends StackProps {
  config: StageConfig;
}

/** One deployed stage of the Store Orders API. Stages differ only in their StageConfig. */
export class StoreOrdersStack extends Stack {
  readonly config: StageConfig;
  readonly tables: ServiceTables;
  readonly functions: Record<EntryId, ServiceFunction>;
  /** The sync watch's event source mapping on the orders table's stream, and its dead-letter queue. */
  readonly syncWatch: StreamConsumer;
  /** Event delivery: the fan-out's mapping, the delivery queue and its dead-letter queue, the worker's mapping. */
  readonly webhookDelivery: WebhookDelivery;
  /** The index-lag canary's schedule (EventBridge Scheduler), which runs it every minute. */
  readonly indexCanary: IndexCanarySchedule;
  /** v1: the RestApi with stage v1, which owns the usage plans and the custom domain. */
  readonly api: OrdersApi;
  /** v2 (beta): a RestApi of its own with stage v2, in v1's usage plans and on its domain. */
  readonly v2Api: OrdersApi;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  readonly releases: ServiceReleases;
  /** The web ACL in front of both APIs' stages: the limit per client address. */
  readonly firewall: AddressFirewall;
  /** The v2 cursors' HMAC key, which list-orders-v2 alone reads at run time. */
  readonly cursorKey: Secret;

  constructor(scope: Construct, id: string, props: StoreOrdersStackProps) {
    const { config, ...stackProps } = props;
    validateConfig(config);
    super(scope, id, { description: `Store Orders API (${config.stage})`, ...stackProps });
    this.config = config;
    const removalPolicy = config.disposableData ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    this.tables = new ServiceTables(this, 'Tables', { disposable: config.disposableData });
    const make = (entry: EntryId): ServiceFunction => {
      const fn = new ServiceFunction(this, pascalCase(entry), {
        entry,
        stage: config.stage,
        logRetention: config.logRetention,
        logRemovalPolicy: removalPolicy,
        ...(entry === 'list-orders'
          ? {
              reservedConcurrency: config.listOrdersReservedConcurrency,
              environment: {
                [STAGE_LISTINGS_CAP_ENV_VAR]: String(stageListingsCap(config.listOrdersReservedConcurrency)),
              },
            }
          : {}),
      });
      this.tables.bind(fn.function, FUNCTIONS[entry].access);
      return fn;
    };
    // The v2 cursors' HMAC key: generated once per stage, never in the template or a function's configuration.
    const cursorKey = (this.cursorKey = new Secret(this, 'CursorKey', {
      description: 'HMAC key of the v2 listing cursors',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    }));
    explainCursorKeyFindings(cursorKey);
    this.functions = {
      authorizer: make('authorizer'),
      'list-orders': make('list-orders'),
      'cancel-order': make('cancel-order'),
      'get-pet': make('get-pet'),
      'list-orders-v2': make('list-orders-v2'),
      'sync-watch': make('sync-watch'),
      'webhook-endpoints': make('webhook-endpoints'),
      'webhook-fanout': make('webhook-fanout'),
      'webhook-delivery': make('webhook-delivery'),
      'index-canary': make('index-canary'),
    };
    // The orders table's stream, read by the sync watch through its live alias (docs/design.md#the-change-stream).
    const watch = STREAM_MAPPINGS['sync-watch'];
    this.syncWatch = new StreamConsumer(this, 'SyncWatchStream', {
      table: this.tables.tables[watch.table],
      target: this.functions['sync-watch'].alias,
      settings: watch,
      removalPolicy,
    });
    // Order events: the stream's second consumer queues them, the worker delivers them (docs/design.md#event-delivery).
    this.webhookDelivery = new WebhookDelivery(this, 'Webhooks', {
      ordersTable: this.tables.tables.orders,
      fanout: this.functions['webhook-fanout'],
      worker: this.functions['webhook-delivery'],
      senders: [this.functions['webhook-endpoints']],
      removalPolicy,
    });
    // The index-lag canary, every minute, through its live alias (docs/design.md#the-index-lag-canary).
    this.indexCanary = new IndexCanarySchedule(this, 'IndexCanarySchedule', {
      target: this.functions['index-canary'].alias,
      periodSeconds: SCHEDULES['index-canary'].periodSeconds,
    });
    // The function reads the key at run time, by the secret's ARN: a dynamic reference resolved into
    // its environment would show the key in the function's configuration. It alone may read it.
    const v2 = this.functions['list-orders-v2'];
    v2.function.addEnvironment(CURSOR_KEY_SECRET_ENV, cursorKey.secretArn);
    v2.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: [SECRET_READ_ACTION], resources: [cursorKey.secretArn] }),
    );

    // The id 'Default' leaves the API's resources out of the construct path that logical ids are
    // made from, so they kept their ids when the API became a construct: an update does not
    // replace the API (its URL) or the usage plans (which keys are bound to).
    // API Gateway invokes each function's live alias, never $LATEST, so releases go through CodeDeploy.
    const apiProps = {
      config,
      authorizer: this.functions.authorizer.alias,
      routeFunctions: {
        'list-orders': this.functions['list-orders'].alias,
        'cancel-order': this.functions['cancel-order'].alias,
        'get-pet': this.functions['get-pet'].alias,
        'list-orders-v2': this.functions['list-orders-v2'].alias,
        'webhook-endpoints': this.functions['webhook-endpoints'].alias,
      },
      logRemovalPolicy: removalPolicy,
    };
    this.api = new OrdersApi(this, 'Default', { ...apiProps, routes: ROUTES });
    // A stage of the v1 API would serve v1's whole resource tree under /v2 (docs/design.md#deployed-apis).
    this.v2Api = new OrdersApi(this, 'V2', { ...apiProps, routes: V2_ROUTES, joins: this.api });
    this.firewall = new AddressFirewall(this, 'Firewall', {
      stageName: config.stage,
      apiStages: Object.fromEntries(this.apis.map((api) => [api.stageName, api.api.deploymentStage])),
    });

    const buffered = (api: OrdersApi, routes: readonly Route<OperationId>[]) =>
      Object.fromEntries(
        routes.filter((r) => !r.streaming).map((r) => [r.operationId, api.routeMethods[r.operationId] as Method]),
      );
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      // v1's alarms keep the ids they were deployed with; v2's carry its prefix.
      apiStages: [
        { idSuffix: '', label: '', stage: this.api.api.deploymentStage, bufferedRoutes: buffered(this.api, ROUTES) },
        {
          idSuffix: 'V2',
          label: this.v2Api.basePath,
          stage: this.v2Api.api.deploymentStage,
          bufferedRoutes: buffered(this.v2Api, V2_ROUTES),
        },
      ],
      longRunning: Object.fromEntries(
        [...ROUTES, ...V2_ROUTES]
          .filter((r) => r.streaming)
          .map((r) => [
            r.function,
            {
              fn: this.functions[r.function].function,
              timeout: Duration.seconds(FUNCTIONS[r.function].timeoutSeconds),
            },
          ]),
      ),
      authorizerLogs: this.functions.authorizer.logGroup,
      indexedTable: {
        tableName: this.tables.tables.orders.tableName,
        indexNames: TABLES.orders.indexes.map((index) => index.name),
      },
      functions: Object.fromEntries(Object.entries(this.functions).map(([name, fn]) => [name, fn.function])),
      aliases: {
        authorizer: this.functions.authorizer.alias,
        'list-orders': this.functions['list-orders'].alias,
        'cancel-order': this.functions['cancel-order'].alias,
        'get-pet': this.functions['get-pet'].alias,
        'list-orders-v2': this.functions['list-orders-v2'].alias,
        'webhook-endpoints': this.functions['webhook-endpoints'].alias,
      },
      syncWatch: { fn: this.functions['sync-watch'].function, consumer: this.syncWatch, settings: watch },
      webhookDelivery: {
        construct: this.webhookDelivery,
        fanout: this.functions['webhook-fanout'].function,
        worker: this.functions['webhook-delivery'].function,
      },
      addressLimitBlocked: this.firewall.metricBlocked(),
      config,
    });
    this.releases = new ServiceReleases(this, 'Releases', {
      stage: config.stage,
      release: config.release,
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicy,
      functions: {
        authorizer: { alias: this.functions.authorizer.alias, rollbackAlarms: this.alarms.rollback.authorizer },
        'list-orders': {
          alias: this.functions['list-orders'].alias,
          rollbackAlarms: this.alarms.rollback['list-orders'],
        },
        'cancel-order': {
          alias: this.functions['cancel-order'].alias,
          rollbackAlarms: this.alarms.rollback['cancel-order'],
        },
        'get-pet': { alias: this.functions['get-pet'].alias, rollbackAlarms: this.alarms.rollback['get-pet'] },
        'list-orders-v2': {
          alias: this.functions['list-orders-v2'].alias,
          rollbackAlarms: this.alarms.rollback['list-orders-v2'],
        },
        'webhook-endpoints': {
          alias: this.functions['webhook-endpoints'].alias,
          rollbackAlarms: this.alarms.rollback['webhook-endpoints'],
        },
      },
    });
    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      stageName: config.stage,
      syncWatch: this.functions['sync-watch'].function,
      webhookDelivery: {
        queue: this.webhookDelivery.queue,
        fanout: this.functions['webhook-fanout'].function,
      },
      indexCanary: this.functions['index-canary'].function,
      apiStages: [this.api, this.v2Api].map((api) => ({ basePath: api.basePath, stage: api.api.deploymentStage })),
    });
    this.releases.addToDashboard(this.dashboard.dashboard);
    // What outlives the stack, marked so that a new stack can take it back (infra/retained-data.ts).
    if (removalPolicy === RemovalPolicy.RETAIN)
      tagRetainedData([...Object.values(this.tables.tables), cursorKey, this.releases.canaryKey]);
    this.addOutputs();
    explainNagFindings(this);
  }

  /** Every RestApi of the stage, v1 first. */
  get apis(): readonly OrdersApi[] {
    return [this.api, this.v2Api];
  }

  private addOutputs(): void {
    const { api } = this.api;
    new CfnOutput(this, API_URL_OUTPUT, { value: this.api.url, description: 'Base URL of the API, ending in /v1/' });
    new CfnOutput(this, EXECUTE_API_URL_OUTPUT, { value: api.url, description: 'execute-api URL of the v1 stage' });
    new CfnOutput(this, REST_API_ID_OUTPUT, { value: api.restApiId });
    // v2 is a RestApi of its own: on the execute-api host its URL has another API id than v1's.
    new CfnOutput(this, V2_API_URL_OUTPUT, {
      value: this.v2Api.url,
      description: 'Base URL of the v2 (beta) API, ending in /v2/: beside v1 on the custom domain, if any',
    });
    new CfnOutput(this, V2_EXECUTE_API_URL_OUTPUT, {
      value: this.v2Api.api.url,
      description: 'execute-api URL of the v2 stage (its own API id)',
    });
    new CfnOutput(this, V2_REST_API_ID_OUTPUT, { value: this.v2Api.api.restApiId });
    new CfnOutput(this, CURSOR_KEY_SECRET_OUTPUT, {
      value: this.cursorKey.secretArn,
      description: 'Secret holding the HMAC key of the v2 cursors, rotated by hand (docs/operations.md)',
    });
    new CfnOutput(this, CANARY_KEY_SECRET_OUTPUT, {
      value: this.releases.canaryKey.secretArn,
      description:
        "Secret holding the release canary key the authorizer's pre-traffic hook authorizes (docs/operations.md)",
    });
    new CfnOutput(this, WEBHOOK_QUEUE_URL_OUTPUT, {
      value: this.webhookDelivery.queue.queueUrl,
      description:
        'The webhook delivery queue, which `webhooks replay` and `webhooks test` of the admin command send to',
    });
    new CfnOutput(this, DASHBOARD_URL_OUTPUT, {
      value: this.dashboard.url,
      description: 'CloudWatch dashboard of this stage',
    });
    for (const tableId of Object.keys(TABLE_NAME_OUTPUTS) as TableId[]) {
      new CfnOutput(this, TABLE_NAME_OUTPUTS[tableId], {
        value: this.tables.tables[tableId].tableName,
        description: `Physical name of the table the functions read from ${TABLES[tableId].envVar}`,
      });
    }
    for (const plan of PLAN_NAMES) {
      new CfnOutput(this, USAGE_PLAN_ID_OUTPUTS[plan], {
        value: this.api.usagePlans[plan].usagePlanId,
        description: `Usage plan that ${plan} keys' API Gateway API keys are attached to`,
      });
    }
  }
}
