// Event delivery as deployed (docs/design.md#event-delivery): the fan-out's mapping on the orders
// table's stream, the delivery queue (its visibility timeout, retention and redrive to its dead-letter
// queue, both kept with prod's data), the worker's mapping with its bounded concurrency, the worker in
// Lambda's own networking (the internet), the deliveries table, the alarms and the queue's output.
import { Match } from 'aws-cdk-lib/assertions';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { FUNCTIONS, QUEUE_MAPPINGS, STREAM_MAPPINGS, WEBHOOK_QUEUE_URL_OUTPUT } from '../../lib/contract/deployment';
import { TABLES } from '../../lib/contract/tables';
import { BUSINESS_METRICS } from '../../lib/edge/metrics';
import { LIVE_ALIAS } from '../../infra/constructs/service-function';
import { FAILURE_RATE_ALARM, FAILURE_RATE_MIN_ATTEMPTS } from '../../infra/constructs/webhook-delivery';
import { STAGES } from '../../infra/stages';
import { arnOf, logicalId, onlyResource, ref, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

const QUEUE = QUEUE_MAPPINGS['webhook-delivery'];
const FANOUT = STREAM_MAPPINGS['webhook-fanout'];

describe.each(['staging', 'prod'] as const)('event delivery in %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);
  const kept = () => (STAGES[stageName].disposableData ? 'Delete' : 'Retain');

  test('the fan-out reads the orders stream into its live alias, its discarded batches to a queue of its own', () => {
    const { template, stack } = stage();
    const { resource } = onlyResource(template, 'AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.tables.tables.orders), 'StreamArn'] },
      DestinationConfig: { OnFailure: { Destination: arnOf(stack.webhookDelivery.fanout.deadLetters) } },
    });
    expect(JSON.stringify(resource.Properties.FunctionName)).toContain(
      JSON.stringify(ref(stack.functions['webhook-fanout'].alias)),
    );
    expect(resource.Properties).toMatchObject({
      StartingPosition: FANOUT.startingPosition,
      BatchSize: FANOUT.batchSize,
      MaximumBatchingWindowInSeconds: FANOUT.batchingWindowSeconds,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: FANOUT.retryAttempts,
      MaximumRecordAgeInSeconds: FANOUT.maxRecordAgeSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  test('the delivery queue hides a message 6 times the worker timeout, keeps it 14 days, and moves one received too often to its dead-letter queue', () => {
    const { template, stack } = stage();
    const queues = template.findResources('AWS::SQS::Queue');
    const queue = queues[logicalId(stack.webhookDelivery.queue)];
    expect(queue?.Properties).toEqual({
      VisibilityTimeout: QUEUE.visibilityTimeoutSeconds,
      MessageRetentionPeriod: QUEUE.retentionSeconds,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: arnOf(stack.webhookDelivery.deadLetters),
        maxReceiveCount: QUEUE.maxReceiveCount,
      },
    });
    expect(QUEUE.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * FUNCTIONS['webhook-delivery'].timeoutSeconds);
    expect(QUEUE.retentionSeconds).toBe(14 * 24 * 3600);
    for (const id of [
      stack.webhookDelivery.queue,
      stack.webhookDelivery.deadLetters,
      stack.webhookDelivery.fanout.deadLetters,
    ]) {
      expect(queues[logicalId(id)]?.DeletionPolicy).toBe(kept());
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [ref(id)],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  test('the worker reads it through its live alias, at most maxConcurrency invocations at once, naming the messages it did not finish', () => {
    const { template, stack } = stage();
    const { resource } = onlyResource(template, 'AWS::Lambda::EventSourceMapping', {
      EventSourceArn: arnOf(stack.webhookDelivery.queue),
    });
    const target = JSON.stringify(resource.Properties.FunctionName);
    expect(target).toContain(JSON.stringify(ref(stack.functions['webhook-delivery'].alias)));
    expect(target).toContain(`:${LIVE_ALIAS}`);
    expect(resource.Properties).toMatchObject({
      BatchSize: QUEUE.batchSize,
      ScalingConfig: { MaximumConcurrency: QUEUE.maxConcurrency },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  test("the worker runs in Lambda's own networking, which reaches the internet: no VPC", () => {
    const { template, stack } = stage();
    const worker =
      template.findResources('AWS::Lambda::Function')[logicalId(stack.functions['webhook-delivery'].function)];
    expect(worker?.Properties?.VpcConfig).toBeUndefined();
  });

  test('the deliveries table: keyed pk and sk, its items expiring, kept with the stage data', () => {
    const { template, stack } = stage();
    const table = template.findResources('AWS::DynamoDB::Table')[logicalId(stack.tables.tables.webhookDeliveries)];
    expect(table?.Properties).toMatchObject({
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: TABLES.webhookDeliveries.ttlAttribute, Enabled: true },
    });
    expect(table?.DeletionPolicy).toBe(kept());
  });

  test('alarms: the oldest queued delivery, the failure rate across endpoints, both dead-letter queues, the fan-out and the worker', () => {
    const { template, stack } = stage();
    const alarms = template.findResources('AWS::CloudWatch::Alarm');
    const alarm = (id: string) => alarms[logicalId(stack.alarms.node.findChild(id) as Alarm)]?.Properties ?? {};
    expect(alarm('WebhookOldestUndelivered')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack.webhookDelivery.queue), 'QueueName'] } },
      ],
      Threshold: QUEUE.ageAlarmSeconds,
    });
    const rate = alarm('WebhookFailureRate') as {
      Metrics: { Expression?: string; MetricStat?: { Metric: { MetricName: string } } }[];
      Threshold: number;
    };
    expect(rate.Threshold).toBe(FAILURE_RATE_ALARM);
    expect(rate.Metrics.find((m) => m.Expression)?.Expression).toContain(`>= ${FAILURE_RATE_MIN_ATTEMPTS}`);
    expect(rate.Metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : [])).sort()).toEqual(
      [BUSINESS_METRICS.webhookDelivered.name, BUSINESS_METRICS.webhookFailed.name].sort(),
    );
    for (const [id, queue] of [
      ['WebhookDeadLetters', stack.webhookDelivery.deadLetters],
      ['WebhookFanoutDeadLetters', stack.webhookDelivery.fanout.deadLetters],
    ] as const)
      expect(alarm(id)).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(queue), 'QueueName'] } }],
        Threshold: 1,
      });
    expect(alarm('WebhookFanoutIteratorAge')).toMatchObject({
      MetricName: 'IteratorAge',
      Threshold: FANOUT.iteratorAgeAlarmSeconds * 1000,
    });
    expect(alarm('WebhookFanoutErrors')).toMatchObject({ MetricName: 'Errors' });
    expect(alarm('WebhookWorkerErrors')).toMatchObject({ MetricName: 'Errors' });
  });

  test("the queue's URL is an output, for the admin command's replay and test", () => {
    const { template, stack } = stage();
    template.hasOutput(WEBHOOK_QUEUE_URL_OUTPUT, { Value: ref(stack.webhookDelivery.queue) });
  });
});
