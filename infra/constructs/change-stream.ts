// A table's change stream and the function that reads it (the sync watch): an event source mapping
// with the settings lib/contract/deployment.ts declares (STREAM_MAPPINGS), on the function's `live`
// alias, and an SQS queue as its on-failure destination, which receives a description of each batch
// the mapping gives up on (DDBStreamBatchInfo: shard, sequence numbers, arrival times), never its
// records. AWS: docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html (the parameters),
// services-dynamodb-errors.html (retries, bisecting, destinations), and with its alarms what an
// operator does in docs/operations.md#the-sync-watch.
import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ComparisonOperator, Metric, type AlarmProps } from 'aws-cdk-lib/aws-cloudwatch';
import { StartingPosition, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../../lib/commons/service';
import type { StageName, StreamMapping } from '../../lib/contract/deployment';
import { settleMs, SYNC_TIMING } from '../../lib/contract/sync';
import { landingAllowanceMs } from '../../lib/core/sync/lateness';
import { BUSINESS_METRICS, METRICS_NAMESPACE, type MetricDeclaration } from '../../lib/edge/metrics';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';

export interface StreamConsumerProps {
  table: ITable;
  /** What the mapping invokes: the function's live alias. */
  target: IFunction;
  settings: StreamMapping;
  /** The queue's, as the stage's data: retained in prod, where what it holds is what repair needs. */
  removalPolicy: RemovalPolicy;
}

/** SQS keeps a message at most 14 days: the operator's time to read what was given up on. */
const DEAD_LETTER_RETENTION = Duration.days(14);

export class StreamConsumer extends Construct {
  /** The on-failure destination: one message for each batch the mapping discarded. */
  readonly deadLetters: Queue;
  readonly source: DynamoEventSource;

  constructor(scope: Construct, id: string, props: StreamConsumerProps) {
    super(scope, id);
    const { settings } = props;
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
      removalPolicy: props.removalPolicy,
    });
    this.source = new DynamoEventSource(props.table, {
      startingPosition:
        settings.startingPosition === 'TRIM_HORIZON' ? StartingPosition.TRIM_HORIZON : StartingPosition.LATEST,
      batchSize: settings.batchSize,
      maxBatchingWindow: Duration.seconds(settings.batchingWindowSeconds),
      bisectBatchOnError: settings.bisectOnError,
      retryAttempts: settings.retryAttempts,
      maxRecordAge: Duration.seconds(settings.maxRecordAgeSeconds),
      reportBatchItemFailures: settings.reportBatchItemFailures,
      onFailure: new SqsDlq(this.deadLetters),
    });
    // Grants the function the stream's read actions and SendMessage on the queue.
    props.target.addEventSource(this.source);
  }
}

/**
 * How late a change may land after its stamp as deployed (lib/core/sync/lateness.ts): the settling
 * time of the deployed writers and walks less the index lag and the walk's clock error.
 */
export const DEPLOYED_LANDING_ALLOWANCE_MS = landingAllowanceMs({
  settleMs: settleMs(SYNC_TIMING, REQUEST_TIMEOUT_MS),
  clockErrorMs: SYNC_TIMING.clockErrorMs,
  indexLagMs: SYNC_TIMING.indexLagMs,
});

const PERIOD = Duration.minutes(5);
/** IteratorAge is held to its bound minute by minute: the repair time counts on it. */
const ITERATOR_AGE_PERIOD = Duration.minutes(1);

/**
 * The sync watch's alarms, by id: each an assumption exact sync rests on, or the watch that repairs
 * its breach, failing. docs/operations.md#the-sync-watch says what each means and what to do.
 */
export function syncWatchAlarms(
  watch: { fn: IFunction; consumer: StreamConsumer; settings: StreamMapping },
  stage: StageName,
): Record<string, AlarmProps> {
  const business = (declaration: MetricDeclaration, statistic: string) =>
    new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: declaration.name,
      dimensionsMap: { service: SERVICE_NAME, stage },
      statistic,
      period: PERIOD,
    });
  const ageMs = watch.settings.iteratorAgeAlarmSeconds * 1000;
  return {
    ChangesLandedLate: {
      alarmDescription:
        `An order change may have reached the table more than ${DEPLOYED_LANDING_ALLOWANCE_MS / 1000} s after its stamp: the landing bound exact sync rests on broke. ` +
        'The sync watch re-stamped the order, so replicas get it within the repair time; find what delays writes (docs/operations.md#the-sync-watch).',
      metric: business(BUSINESS_METRICS.changeLateness, 'Maximum'),
      threshold: DEPLOYED_LANDING_ALLOWANCE_MS,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    },
    ChangesStampedAhead: {
      alarmDescription:
        `An order change was stamped more than ${SYNC_TIMING.clockErrorMs / 1000} s ahead of AWS's clock: a writer's clock is off. ` +
        'No walk misses such a change, but the clock bound sync rests on broke; find the writer (docs/operations.md#the-sync-watch).',
      metric: business(BUSINESS_METRICS.changesStampedAhead, 'Sum'),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    },
    SyncWatchIteratorAge: {
      alarmDescription:
        `Changes waited more than ${watch.settings.iteratorAgeAlarmSeconds} s in the orders table's stream before the sync watch got them: ` +
        'it is falling behind, and a late change is repaired that much later than the documented repair time.',
      metric: watch.fn.metric('IteratorAge', { statistic: 'Maximum', period: ITERATOR_AGE_PERIOD }),
      threshold: ageMs,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    },
    SyncWatchErrors: {
      alarmDescription:
        'An invocation of the sync watch failed: its batch is retried (bisected), and discarded to the dead-letter queue after its retries.',
      metric: watch.fn.metricErrors({ statistic: 'Sum', period: PERIOD }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    },
    ChangeStreamDeadLetters: {
      alarmDescription:
        "The sync watch gave up on a batch of the orders table's stream: those changes were not checked, and one that landed late is not repaired (docs/operations.md#the-sync-watch).",
      metric: watch.consumer.deadLetters.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: PERIOD,
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    },
  };
}
