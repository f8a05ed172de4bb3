// Event delivery (docs/design.md#event-delivery): the fan-out, the orders table's second stream consumer
// (a StreamConsumer, as the sync watch's), the delivery queue (SQS standard, its group the endpoint:
// a fair queue) with its dead-letter queue, and the worker on it through an event source mapping whose
// maximum concurrency bounds the attempts in flight (QUEUE_MAPPINGS). The worker needs the internet:
// it runs in Lambda's default networking (no VPC), which reaches public addresses
// (docs.aws.amazon.com/lambda/latest/dg/configuration-vpc-internet.html). AWS's settings:
// docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html (visibility timeout at least six
// times the function's), services-sqs-scaling.html (MaximumConcurrency), and
// AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html (maxReceiveCount).
import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ComparisonOperator, MathExpression, Metric, type AlarmProps } from 'aws-cdk-lib/aws-cloudwatch';
import { EventSourceMapping, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../../lib/commons/service';
import {
  FUNCTIONS,
  QUEUE_MAPPINGS,
  STREAM_MAPPINGS,
  WEBHOOK_QUEUE_URL_ENV,
  type StageName,
} from '../../lib/contract/deployment';
import { BUSINESS_METRICS, METRICS_NAMESPACE, type MetricDeclaration } from '../../lib/edge/metrics';
import { StreamConsumer } from './change-stream';
import type { ServiceFunction } from './service-function';

export interface WebhookDeliveryProps {
  ordersTable: ITable;
  fanout: ServiceFunction;
  worker: ServiceFunction;
  /** Functions that queue deliveries too: the endpoints' function (its test route). */
  senders: readonly ServiceFunction[];
  /** The queues', as the stage's data: retained in prod, where what they hold is undelivered events. */
  removalPolicy: RemovalPolicy;
}

const SETTINGS = QUEUE_MAPPINGS['webhook-delivery'];

export class WebhookDelivery extends Construct {
  readonly queue: Queue;
  /** Messages received too often without being handled (a worker that crashed or timed out on them). */
  readonly deadLetters: Queue;
  /** The fan-out's event source mapping on the orders table's stream, and its on-failure destination. */
  readonly fanout: StreamConsumer;
  readonly source: SqsEventSource;
  /** The worker's mapping on the queue. */
  readonly mapping: EventSourceMapping;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    const retentionPeriod = Duration.seconds(SETTINGS.retentionSeconds);
    const queueProps = {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
    };
    this.deadLetters = new Queue(this, 'DeadLetters', { ...queueProps, retentionPeriod });
    const timeout = FUNCTIONS['webhook-delivery'].timeoutSeconds;
    if (SETTINGS.visibilityTimeoutSeconds < 6 * timeout)
      throw new Error('The delivery queue must hide a message for at least 6 times the worker timeout (AWS)');
    this.queue = new Queue(this, 'Queue', {
      ...queueProps,
      retentionPeriod,
      visibilityTimeout: Duration.seconds(SETTINGS.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: SETTINGS.maxReceiveCount },
    });
    this.fanout = new StreamConsumer(this, 'FanoutStream', {
      table: props.ordersTable,
      target: props.fanout.alias,
      settings: STREAM_MAPPINGS['webhook-fanout'],
      removalPolicy: props.removalPolicy,
    });
    this.source = new SqsEventSource(this.queue, {
      batchSize: SETTINGS.batchSize,
      maxConcurrency: SETTINGS.maxConcurrency,
      reportBatchItemFailures: true,
    });
    // Grants the worker's role the queue's consuming actions.
    props.worker.alias.addEventSource(this.source);
    const mapping = props.worker.alias.node.children.find((child) => child instanceof EventSourceMapping);
    if (!(mapping instanceof EventSourceMapping)) throw new Error("The worker's queue mapping was not made");
    this.mapping = mapping;
    for (const sender of [props.fanout, props.worker, ...props.senders]) {
      this.queue.grantSendMessages(sender.function);
      sender.function.addEnvironment(WEBHOOK_QUEUE_URL_ENV, this.queue.queueUrl);
    }
  }
}

const PERIOD = Duration.minutes(5);

/** Attempts in a period below which the failure rate is not judged: one failing endpoint's probes are no trend. */
export const FAILURE_RATE_MIN_ATTEMPTS = 20;
/** The share of attempts failing, over three periods in a row, that is alarmed on. */
export const FAILURE_RATE_ALARM = 0.5;

/**
 * Event delivery's alarms, by id: the age of the oldest undelivered message (the workers are behind
 * or failing), the failure rate of attempts across every endpoint (deliveries are failing at our
 * end: DNS, egress), the dead-letter queues, and the fan-out's health. docs/operations.md#webhook-delivery.
 */
export function webhookDeliveryAlarms(
  delivery: { construct: WebhookDelivery; fanout: IFunction; worker: IFunction },
  stage: StageName,
): Record<string, AlarmProps> {
  const business = (declaration: MetricDeclaration) =>
    new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: declaration.name,
      dimensionsMap: { service: SERVICE_NAME, stage },
      statistic: 'Sum',
      period: PERIOD,
    });
  const { construct } = delivery;
  const fanout = STREAM_MAPPINGS['webhook-fanout'];
  return {
    WebhookOldestUndelivered: {
      alarmDescription:
        `A queued delivery waited more than ${SETTINGS.ageAlarmSeconds} s (ApproximateAgeOfOldestMessage): a waiting one is re-sent at least every 15 minutes, ` +
        'so no worker took it: the workers are behind or failing (docs/operations.md#webhook-delivery).',
      metric: construct.queue.metricApproximateAgeOfOldestMessage({
        statistic: 'Maximum',
        period: Duration.minutes(1),
      }),
      threshold: SETTINGS.ageAlarmSeconds,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
    },
    WebhookFailureRate: {
      alarmDescription:
        `More than ${FAILURE_RATE_ALARM * 100}% of delivery attempts, across every endpoint, failed for 15 minutes (at least ${FAILURE_RATE_MIN_ATTEMPTS} attempts each 5): ` +
        'a failing endpoint makes one attempt a step, so this is delivery failing at our end (DNS, egress) or many receivers at once (docs/operations.md#webhook-delivery).',
      metric: new MathExpression({
        expression: `IF(FILL(ok, 0) + FILL(failed, 0) >= ${FAILURE_RATE_MIN_ATTEMPTS}, FILL(failed, 0) / (FILL(ok, 0) + FILL(failed, 0)), 0)`,
        usingMetrics: {
          ok: business(BUSINESS_METRICS.webhookDelivered),
          failed: business(BUSINESS_METRICS.webhookFailed),
        },
        period: PERIOD,
        label: 'Share of delivery attempts failing',
      }),
      threshold: FAILURE_RATE_ALARM,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
    },
    WebhookDeadLetters: {
      alarmDescription:
        'A queued delivery was received too often without being handled (the worker crashed or timed out on it) and moved to the dead-letter queue (docs/operations.md#webhook-delivery).',
      metric: construct.deadLetters.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    },
    WebhookWorkerErrors: {
      alarmDescription:
        'An invocation of the delivery worker failed: its batch comes back after the visibility timeout.',
      metric: delivery.worker.metricErrors({ statistic: 'Sum', period: PERIOD }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    },
    WebhookFanoutIteratorAge: {
      alarmDescription: `Changes waited more than ${fanout.iteratorAgeAlarmSeconds} s in the orders table's stream before the fan-out got them: events are queued that much later.`,
      metric: delivery.fanout.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
      threshold: fanout.iteratorAgeAlarmSeconds * 1000,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    },
    WebhookFanoutErrors: {
      alarmDescription:
        'An invocation of the fan-out failed: its batch is retried (bisected), and described in its dead-letter queue after its retries.',
      metric: delivery.fanout.metricErrors({ statistic: 'Sum', period: PERIOD }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    },
    WebhookFanoutDeadLetters: {
      alarmDescription:
        "The fan-out gave up on a batch of the orders table's stream: those changes raised no event; `webhooks replay` resends them (docs/operations.md#webhook-delivery).",
      metric: construct.fanout.deadLetters.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: PERIOD,
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    },
  };
}
