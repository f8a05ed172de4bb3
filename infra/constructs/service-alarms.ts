import { Duration, Stack } from 'aws-cdk-lib/core';
import type { Method, Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IAlarmAction,
  type IMetric,
  type MetricOptions,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IAlias, IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic, type Subscription } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { BUSINESS_METRICS, METRICS_NAMESPACE, type MetricDeclaration } from '../../lib/edge/metrics';
import { SERVICE_NAME } from '../../lib/commons/service';
import {
  AUTHORIZER_FAILED_MESSAGE,
  AUTHORIZER_VERSION_KEY,
  KEY_ACCEPTED_MESSAGE,
  KEY_REFUSED_MESSAGE,
} from '../../lib/edge/authorizer';
import { LIST_CEILING, MIN_CLIENT_BYTES_PER_SECOND } from '../list-budget';
import type { FunctionId } from '../../lib/contract/deployment';
import { ROLLBACK_ALARM_MINUTES as ROLLBACK_MINUTES, type StageConfig } from '../stages';
import { ADDRESS_LIMIT } from '../../lib/contract/address-limit';
import { pascalCase } from './names';
import { syncWatchAlarms } from './change-stream';
import { webhookDeliveryAlarms } from './webhook-delivery';
import { indexCanaryAlarms } from './index-canary';

/** One API Gateway stage of the stage stack (v1, v2) and what is alarmed on in it. */
export interface ApiStageAlarms {
  /** Added to its alarms' ids: empty for v1, whose alarms keep the ids they were deployed with. */
  idSuffix: string;
  /** Names the stage in alarm descriptions (`/v2`); empty for v1, whose descriptions are unchanged. */
  label: string;
  stage: Stage;
  /**
   * The methods whose whole answer is one buffered response, by operation id. A streamed route is
   * left out: API Gateway's Latency for it spans the whole stream, so a large but healthy listing
   * would look slow.
   */
  bufferedRoutes: Record<string, Method>;
}

export interface ServiceAlarmsProps {
  /** Every API stage: each has its 5XX rate alarmed on, and its buffered routes' p99 latency. */
  apiStages: readonly ApiStageAlarms[];
  /**
   * Functions whose one invocation may legitimately run long (a streamed listing), with their
   * timeout: an alarm fires when one nears it, since a slightly larger answer would end cut.
   */
  longRunning: Record<string, { fn: IFunction; timeout: Duration }>;
  /** The authorizer's log group, where a failure to judge a key is logged. */
  authorizerLogs: ILogGroup;
  /**
   * The orders table and its global secondary indexes (the v2 listing's): an index that cannot take
   * its writes makes DynamoDB throttle the table's writes (GSI back-pressure).
   */
  indexedTable: { tableName: string; indexNames: readonly string[] };
  /** Every function behind the API, the authorizer included. */
  functions: Record<string, IFunction>;
  /** The alias of each function that API Gateway invokes, which a release shifts. */
  aliases: Record<FunctionId, IAlias>;
  /** The sync watch on the orders table's stream: its assumptions and its own health. */
  syncWatch: Parameters<typeof syncWatchAlarms>[0];
  /** Event delivery: its queues, its fan-out and its worker. */
  webhookDelivery: Parameters<typeof webhookDeliveryAlarms>[0];
  /** Requests the web ACL's limit per client address blocked (infra/constructs/address-firewall.ts). */
  addressLimitBlocked: IMetric;
  config: StageConfig;
}

const PERIOD = Duration.minutes(5);

/** The alarm on GSI back-pressure; it was `OrderIndexWriteThrottles`, described as index lag. */
export const ORDER_WRITES_THROTTLED_BY_INDEXES = 'OrderWritesThrottledByIndexes';

/**
 * The sum of several metrics, each one's missing periods counted as 0 (FILL), so the sum has a
 * value whenever any of them has one, whatever CloudWatch makes of a term with no data at all.
 */
export function filledSum(ids: readonly string[]): string {
  return ids.map((id) => `FILL(${id}, 0)`).join(' + ');
}

/**
 * The rollback alarms look at one-minute periods and fire on two breaching minutes in a row: fast
 * enough to stop a canary within its minutes, yet not on one unlucky call.
 */
const ROLLBACK_PERIOD = Duration.minutes(1);

/** The share of its timeout after which a long-running invocation is alarmed on. */
const DURATION_ALARM_FRACTION = 0.8;

/** The share of what one listing can carry (orders, or bytes before Lambda cuts it) after which the store's growth is alarmed on. */
export const LISTING_SIZE_ALARM_FRACTION = 0.8;

/**
 * Alarms for what a client would notice: server errors, slow answers, a failing authorizer (its
 * requests get 503; a refused key is not a failure) and Lambda throttling (capacity, as opposed to the 429s that rate
 * limiting gives by design, which are not alarmed on), and a store growing towards what one listing
 * can carry (apart from a slow client, which only the duration alarm shows). Missing data means no
 * traffic, not trouble.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];
  /**
   * Per function, the alarms CodeDeploy watches while it shifts the function's alias to a new
   * version: one on errors, one on latency, and for the authorizer one on its refusal rate, all on
   * the new version alone. It rolls the release back if one fires.
   */
  readonly rollback = {} as Record<FunctionId, Alarm[]>;
  /** The topic created for config.email, and the address's subscription to it. */
  email?: { topic: Topic; subscription: Subscription };

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const config = props.config.alarms;

    for (const { idSuffix, label, stage, bufferedRoutes } of props.apiStages) {
      this.add(`ServerErrorRate${idSuffix}`, {
        alarmDescription: `More than ${config.serverErrorRate * 100}% of requests${label ? ` to ${label}` : ''} answered with a 5XX.`,
        metric: stage.metricServerError({ statistic: 'Average', period: PERIOD }),
        threshold: config.serverErrorRate,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
      });

      // Operation ids are unique across versions, so these ids need no suffix.
      for (const [operationId, method] of Object.entries(bufferedRoutes)) {
        this.add(`LatencyP99${pascalCase(operationId)}`, {
          alarmDescription: `p99 latency of ${operationId} above ${config.p99LatencyMs} ms.`,
          metric: method.metricLatency(stage, { statistic: 'p99', period: PERIOD }),
          threshold: config.p99LatencyMs,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
        });
      }
    }

    for (const [name, { fn, timeout }] of Object.entries(props.longRunning)) {
      const threshold = Math.round(timeout.toMilliseconds() * DURATION_ALARM_FRACTION);
      this.add(`DurationNearTimeout${pascalCase(name)}`, {
        alarmDescription:
          `An invocation of ${name} ran longer than ${DURATION_ALARM_FRACTION * 100}% of its ${timeout.toSeconds()} s timeout: ` +
          `a client read slower than the ${MIN_CLIENT_BYTES_PER_SECOND / (1024 * 1024)} MB/s the timeout is sized for, or the CPU or Scan ran slower than measured; ` +
          'a slower one is cut. Whether the store grew shows in the ListedOrders and ListedBytes alarms, not here.',
        metric: fn.metricDuration({ statistic: 'Maximum', period: PERIOD }),
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
      });
    }

    // The store's size, apart from how fast any client reads: the largest complete listing of
    // the period, against what one listing can carry at the deployed settings.
    const listing = (declaration: MetricDeclaration) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: declaration.name,
        dimensionsMap: { service: SERVICE_NAME, stage: props.config.stage },
        statistic: 'Maximum',
        period: PERIOD,
      });
    this.add('ListedOrdersNearCeiling', {
      alarmDescription:
        `A listing carried more than ${LISTING_SIZE_ALARM_FRACTION * 100}% of the ${LIST_CEILING.orders} orders one compressed response can carry: ` +
        'the store is growing towards what listOrders can deliver whole.',
      metric: listing(BUSINESS_METRICS.listedOrders),
      threshold: Math.floor(LIST_CEILING.orders * LISTING_SIZE_ALARM_FRACTION),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });
    this.add('ListedBytesNearResponseLimit', {
      alarmDescription:
        `A listing's JSON passed ${LISTING_SIZE_ALARM_FRACTION * 100}% of the ${LIST_CEILING.bytes} bytes at which Lambda cuts a stream: ` +
        'an uncompressed listing of the store is nearing the size it can be sent whole, after which clients must accept gzip.',
      metric: listing(BUSINESS_METRICS.listedBytes),
      threshold: Math.floor(LIST_CEILING.bytes * LISTING_SIZE_ALARM_FRACTION),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });

    // Bytes as sent, of every listing, cut ones included (ListedBytes counts complete ones only):
    // the largest one nearing the size at which Lambda cuts a stream, compressed or not.
    this.add('ListingResponseBytesNearCut', {
      alarmDescription:
        `A listing's response passed ${LISTING_SIZE_ALARM_FRACTION * 100}% of the ${LIST_CEILING.bytes} bytes at which Lambda cuts a stream, ` +
        'or was cut there: the listing is at risk of reaching its client cut (docs/listing-limits.md).',
      metric: listing(BUSINESS_METRICS.listingResponseBytes),
      threshold: Math.floor(LIST_CEILING.bytes * LISTING_SIZE_ALARM_FRACTION),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });

    // A refused key is a thrown `Unauthorized`, which Lambda counts in Errors like a real failure, so
    // the alarm counts what only a failure produces: the handler's error line, and Lambda's timeout line.
    const authorizerFailures = {
      metricNamespace: `${SERVICE_NAME}/${props.config.stage}`,
      metricName: 'AuthorizerFailures',
    };
    new MetricFilter(this, 'AuthorizerFailedLines', {
      logGroup: props.authorizerLogs,
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.level', '=', 'ERROR'),
        FilterPattern.stringValue('$.message', '=', AUTHORIZER_FAILED_MESSAGE),
      ),
      ...authorizerFailures,
    });
    // The same failure lines again, by the version that logged them, for the rollback alarm.
    const failuresByVersion = new MetricFilter(this, 'AuthorizerFailedLinesByVersion', {
      logGroup: props.authorizerLogs,
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.level', '=', 'ERROR'),
        FilterPattern.stringValue('$.message', '=', AUTHORIZER_FAILED_MESSAGE),
      ),
      metricNamespace: authorizerFailures.metricNamespace,
      metricName: AUTHORIZER_FAILURES_BY_VERSION,
      metricValue: '1',
      dimensions: { [EXECUTED_VERSION]: `$.${AUTHORIZER_VERSION_KEY}` },
    });
    const timeouts = new MetricFilter(this, 'AuthorizerTimeoutLines', {
      logGroup: props.authorizerLogs,
      filterPattern: FilterPattern.literal('"Task timed out"'),
      ...authorizerFailures,
    });
    this.add('AuthorizerFailures', {
      alarmDescription: 'The authorizer could not judge a key; those requests were answered 503.',
      metric: timeouts.metric({ statistic: 'Sum', period: PERIOD }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });
    // Every key the authorizer judged, and the ones it refused, by the version that judged them: a
    // version that refused valid keys would only show here (a refusal is not a failure).
    const byVersion = (id: string, metricName: string, messages: readonly string[]) =>
      new MetricFilter(this, id, {
        logGroup: props.authorizerLogs,
        filterPattern: FilterPattern.any(...messages.map((m) => FilterPattern.stringValue('$.message', '=', m))),
        metricNamespace: authorizerFailures.metricNamespace,
        metricName,
        metricValue: '1',
        dimensions: { [EXECUTED_VERSION]: `$.${AUTHORIZER_VERSION_KEY}` },
      });
    const decisionsByVersion = byVersion('AuthorizerDecisionLinesByVersion', AUTHORIZER_DECISIONS_BY_VERSION, [
      KEY_ACCEPTED_MESSAGE,
      KEY_REFUSED_MESSAGE,
    ]);
    const refusalsByVersion = byVersion('AuthorizerRefusalLinesByVersion', AUTHORIZER_REFUSALS_BY_VERSION, [
      KEY_REFUSED_MESSAGE,
    ]);
    const ofVersion = (filter: MetricFilter) => (version: string) =>
      filter.metric({ statistic: 'Sum', period: ROLLBACK_PERIOD, dimensionsMap: { [EXECUTED_VERSION]: version } });
    this.addRollbackAlarms(props, {
      failures: ofVersion(failuresByVersion),
      decisions: ofVersion(decisionsByVersion),
      refusals: ofVersion(refusalsByVersion),
    });

    // The limit per address rests on no address carrying more than its budget: a block is a flood,
    // or a client the budget does not cover, which an operator has to tell apart.
    this.add('AddressLimitBlocks', {
      alarmDescription:
        `The web ACL answered requests from a client address 429 ADDRESS_RATE_LIMITED: it sent more than ${ADDRESS_LIMIT.limit} in ${ADDRESS_LIMIT.windowSeconds} s. ` +
        'A flood, or a legitimate client whose address carries more than the budget the limit is sized for (docs/operations.md#a-client-address-over-its-limit).',
      metric: props.addressLimitBlocked,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });

    const throttles = Object.fromEntries(
      Object.values(props.functions).map((fn, i) => [
        `t${i}`,
        fn.metricThrottles({ statistic: 'Sum', period: PERIOD }),
      ]),
    );
    this.add('FunctionThrottles', {
      alarmDescription: 'Lambda throttled at least one invocation of a service function.',
      metric: new MathExpression({
        expression: filledSum(Object.keys(throttles)),
        usingMetrics: throttles,
        period: PERIOD,
        label: 'Throttles of all service functions',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });

    this.addIndexBackPressure(props.indexedTable);
    for (const [alarmId, alarm] of Object.entries(syncWatchAlarms(props.syncWatch, props.config.stage)))
      this.add(alarmId, alarm);
    for (const [alarmId, alarm] of Object.entries(webhookDeliveryAlarms(props.webhookDelivery, props.config.stage)))
      this.add(alarmId, alarm);
    for (const [alarmId, alarm] of Object.entries(indexCanaryAlarms(props.config.stage))) this.add(alarmId, alarm);

    const actions: IAlarmAction[] = [];
    if (config.topicArn) actions.push(new SnsAction(Topic.fromTopicArn(this, 'Topic', config.topicArn)));
    if (config.email) {
      const topic = new Topic(this, 'EmailTopic', { enforceSSL: true });
      this.email = { topic, subscription: topic.addSubscription(new EmailSubscription(config.email)) };
      actions.push(new SnsAction(topic));
    }
    for (const alarm of this.alarms) {
      alarm.addAlarmAction(...actions);
      alarm.addOkAction(...actions);
    }
  }

  /**
   * A rollback alarm, named for the version it watches. CloudWatch keeps an updated alarm's state,
   * so an alarm moved in place from a failing version to its fix would start the fix's canary in
   * ALARM and roll it back. A name is fixed at creation (changing it replaces the alarm), so a new
   * version gets a new alarm, created in INSUFFICIENT_DATA before the deployment group names it,
   * and the previous version's alarm is deleted in the update's cleanup. ("When this operation
   * creates an alarm, the alarm state is immediately set to INSUFFICIENT_DATA ... When you update an
   * existing alarm, its state is left unchanged": docs.aws.amazon.com/AWSCloudFormation/latest/
   * UserGuide/aws-properties-cw-alarm.html; AlarmName: update requires replacement.)
   */
  private addRollback(id: string, version: string, props: ConstructorParameters<typeof Alarm>[2]): Alarm {
    return this.add(id, { ...props, alarmName: rollbackAlarmName(Stack.of(this).stackName, id, version) });
  }

  /**
   * GSI back-pressure: "If a GSI doesn't have sufficient capacity to handle these updates, DynamoDB
   * throttles writes to the base table" (docs.aws.amazon.com/amazondynamodb/latest/developerguide/
   * gsi-throttling.html). Such a write is refused, not queued, so this is throttling of order writes,
   * not index lag (AWS publishes no metric of an index's propagation delay). It counts as
   * WriteThrottleEvents with the GlobalSecondaryIndexName dimension, each index a series of its own,
   * and nothing promises a data point of each in every period: each is FILLed, so one index
   * throttling alone is a value, not missing data. FILL in an alarm can hide a late data point of
   * the newest period ("You can work around this by using a M out of N alarm", CloudWatch's metric
   * math page), so the alarm looks at the last two periods and fires on one.
   */
  private addIndexBackPressure({ tableName, indexNames }: ServiceAlarmsProps['indexedTable']): void {
    const metrics = Object.fromEntries(
      indexNames.map((indexName, i) => [
        `index${i}`,
        new Metric({
          namespace: 'AWS/DynamoDB',
          metricName: 'WriteThrottleEvents',
          dimensionsMap: { TableName: tableName, GlobalSecondaryIndexName: indexName },
          statistic: 'Sum',
          period: PERIOD,
        }),
      ]),
    );
    this.add(ORDER_WRITES_THROTTLED_BY_INDEXES, {
      alarmDescription:
        'DynamoDB throttled writes to the orders table because one of its indexes could not take them (GSI back-pressure): those cancels, imports or ships were refused and retried, and a cancel whose attempts all failed was answered 503 (docs/operations.md#alarms).',
      metric: new MathExpression({
        expression: filledSum(Object.keys(metrics)),
        usingMetrics: metrics,
        period: PERIOD,
        label: 'Order writes throttled by an index (write throttle events of the orders indexes)',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 2,
      datapointsToAlarm: 1,
    });
  }

  private add(id: string, props: ConstructorParameters<typeof Alarm>[2]): Alarm {
    const alarm = new Alarm(this, id, { treatMissingData: TreatMissingData.NOT_BREACHING, ...props });
    this.alarms.push(alarm);
    return alarm;
  }

  /**
   * Each alarm watches the version the stack publishes, alone (Lambda's `ExecutedVersion`
   * dimension): during a canary the alias's own metrics mix both versions, so a new version failing
   * every call it gets would hardly move them, and a slow call of the old version could roll back a
   * healthy release.
   * Errors: the share of the new version's invocations that failed (an unhandled error or a
   * timeout; the handlers answer domain errors themselves), above the stage's 5XX rate. The
   * authorizer's Errors also count every refused key, so for it the failure lines the new version
   * logged are counted instead (its timeouts show in its duration).
   * Latency: p99 of the new version's Duration above the stage's p99 latency, except for a
   * long-running function, whose longest invocation is held against its timeout as in DurationNearTimeout.
   */
  private addRollbackAlarms(
    props: ServiceAlarmsProps,
    authorizer: Record<'failures' | 'decisions' | 'refusals', (version: string) => IMetric>,
  ): void {
    const config = props.config.alarms;
    const breaching = {
      evaluationPeriods: ROLLBACK_MINUTES,
      datapointsToAlarm: ROLLBACK_MINUTES,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    };
    for (const [name, alias] of Object.entries(props.aliases) as [FunctionId, IAlias][]) {
      const id = pascalCase(name);
      const version = alias.version.version;
      const ofVersion = (metricName: string, statistic: string) =>
        newVersionMetric(alias, metricName, { statistic, period: ROLLBACK_PERIOD });
      const errors =
        name === 'authorizer'
          ? this.addRollback(`RollbackErrors${id}`, version, {
              alarmDescription: `The new version of ${name} failed to judge keys (its callers got 503) in ${ROLLBACK_MINUTES} minutes in a row.`,
              metric: authorizer.failures(version),
              threshold: 0,
              ...breaching,
            })
          : this.addRollback(`RollbackErrors${id}`, version, {
              alarmDescription: `More than ${config.serverErrorRate * 100}% of the invocations of the new version of ${name} failed in ${ROLLBACK_MINUTES} minutes in a row.`,
              metric: new MathExpression({
                expression: 'IF(invocations > 0, errors / invocations, 0)',
                usingMetrics: { errors: ofVersion('Errors', 'Sum'), invocations: ofVersion('Invocations', 'Sum') },
                period: ROLLBACK_PERIOD,
                label: `Error rate of the new version of ${name}`,
              }),
              threshold: config.serverErrorRate,
              ...breaching,
            });
      const longRunning = props.longRunning[name];
      const latency = longRunning
        ? this.addRollback(`RollbackLatency${id}`, version, {
            alarmDescription: `An invocation of the new version of ${name} ran longer than ${DURATION_ALARM_FRACTION * 100}% of its timeout in ${ROLLBACK_MINUTES} minutes in a row.`,
            metric: ofVersion('Duration', 'Maximum'),
            threshold: Math.round(longRunning.timeout.toMilliseconds() * DURATION_ALARM_FRACTION),
            ...breaching,
          })
        : this.addRollback(`RollbackLatency${id}`, version, {
            alarmDescription: `p99 duration of the new version of ${name} above ${config.p99LatencyMs} ms in ${ROLLBACK_MINUTES} minutes in a row.`,
            metric: ofVersion('Duration', 'p99'),
            threshold: config.p99LatencyMs,
            ...breaching,
          });
      this.rollback[name] = [errors, latency];
      if (name === 'authorizer')
        this.rollback[name].push(
          this.addRollback(`RollbackRefusals${id}`, version, {
            alarmDescription:
              `The new version of ${name} refused more than ${ROLLBACK_REFUSAL_RATE * 100}% of the keys it judged in ${ROLLBACK_MINUTES} minutes in a row: ` +
              'valid keys may be refused (clients get 401).',
            metric: new MathExpression({
              expression: 'IF(decisions > 0, refusals / decisions, 0)',
              usingMetrics: { decisions: authorizer.decisions(version), refusals: authorizer.refusals(version) },
              period: ROLLBACK_PERIOD,
              label: `Refusal rate of the new version of ${name}`,
            }),
            threshold: ROLLBACK_REFUSAL_RATE,
            ...breaching,
          }),
        );
    }
  }
}

/**
 * The name of a rollback alarm: the stack, the alarm's id and the version it watches (a version
 * number, or its token in the template).
 */
export function rollbackAlarmName(stackName: string, id: string, version: string): string {
  return `${stackName}-${id}-v${version}`;
}

/** Lambda's dimension naming the version that ran an invocation made through an alias. */
export const EXECUTED_VERSION = 'ExecutedVersion';

/** The authorizer's failures by the version that logged them (a log metric, unlike Lambda's). */
export const AUTHORIZER_FAILURES_BY_VERSION = 'AuthorizerFailuresByVersion';

/** Keys the authorizer judged (allowed or refused), and those it refused, by the version that judged them. */
export const AUTHORIZER_DECISIONS_BY_VERSION = 'AuthorizerDecisionsByVersion';
export const AUTHORIZER_REFUSALS_BY_VERSION = 'AuthorizerRefusalsByVersion';

/**
 * The share of keys a new authorizer version may refuse before its release is rolled back. Clients
 * mostly send valid keys, so a version refusing most of them is refusing valid ones; a burst of
 * unknown keys alone (a scan) could also cross it, and would only delay the release.
 */
export const ROLLBACK_REFUSAL_RATE = 0.5;

/**
 * A Lambda metric of the invocations, through the alias, that the alias's version (the one this
 * stack update publishes) ran: the dimensions Lambda publishes them with.
 */
export function newVersionMetric(alias: IAlias, metricName: string, props: MetricOptions): Metric {
  return new Metric({
    namespace: 'AWS/Lambda',
    metricName,
    dimensionsMap: {
      FunctionName: alias.version.lambda.functionName,
      Resource: `${alias.version.lambda.functionName}:${alias.aliasName}`,
      [EXECUTED_VERSION]: alias.version.version,
    },
    ...props,
  });
}
