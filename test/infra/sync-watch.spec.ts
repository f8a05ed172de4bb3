// The orders table's change stream and the sync watch that reads it (docs/design.md#the-change-stream):
// the table's stream, the event source mapping with the declared settings on the watch's live alias,
// its on-failure queue, and the alarms on the bounds sync rests on and on the watch itself.
import { Match } from 'aws-cdk-lib/assertions';
import { STREAM_MAPPINGS } from '../../lib/contract/deployment';
import { settleMs, SYNC_TIMING } from '../../lib/contract/sync';
import { TABLES, type TableId } from '../../lib/contract/tables';
import { landingAllowanceMs } from '../../lib/core/sync/lateness';
import { BUSINESS_METRICS, METRICS_NAMESPACE } from '../../lib/edge/metrics';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { LIVE_ALIAS } from '../../infra/constructs/service-function';
import { STAGES } from '../../infra/stages';
import { arnOf, logicalId, onlyResource, ref, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

const WATCH = STREAM_MAPPINGS['sync-watch'];
const ALLOWANCE_MS = landingAllowanceMs({
  settleMs: settleMs(SYNC_TIMING, REQUEST_TIMEOUT_MS),
  clockErrorMs: SYNC_TIMING.clockErrorMs,
  indexLagMs: SYNC_TIMING.indexLagMs,
});

describe.each(['staging', 'prod'] as const)('the sync watch in %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test('only the orders table has a stream, with both images', () => {
    const { template, stack } = stage();
    const tables = template.findResources('AWS::DynamoDB::Table');
    for (const id of Object.keys(TABLES) as TableId[]) {
      const spec = tables[logicalId(stack.tables.tables[id])]?.Properties?.StreamSpecification as unknown;
      expect(spec).toEqual(id === WATCH.table ? { StreamViewType: 'NEW_AND_OLD_IMAGES' } : undefined);
    }
  });

  test('one event source mapping reads it into the live alias, with the declared batching, retries and failure reporting', () => {
    const { template, stack } = stage();
    // Beside the webhook fan-out's on the same stream and the delivery worker's on its queue (webhooks.spec.ts).
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 3);
    const { resource } = onlyResource(template, 'AWS::Lambda::EventSourceMapping', {
      DestinationConfig: { OnFailure: { Destination: arnOf(stack.syncWatch.deadLetters) } },
    });
    // The alias's ARN, `<function>:live`: each deploy's version, never $LATEST.
    const target = JSON.stringify(resource.Properties.FunctionName);
    expect(target).toContain(JSON.stringify(ref(stack.functions['sync-watch'].alias)));
    expect(target).toContain(`:${LIVE_ALIAS}`);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.tables.tables.orders), 'StreamArn'] },
      StartingPosition: WATCH.startingPosition,
      BatchSize: WATCH.batchSize,
      MaximumBatchingWindowInSeconds: WATCH.batchingWindowSeconds,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: WATCH.retryAttempts,
      MaximumRecordAgeInSeconds: WATCH.maxRecordAgeSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: arnOf(stack.syncWatch.deadLetters) } },
    });
    // Bounded: a poison record cannot hold its shard for the stream's 24 hours.
    expect(WATCH.retryAttempts).toBeGreaterThan(0);
    expect(WATCH.maxRecordAgeSeconds).toBeLessThan(24 * 3600);
  });

  test('its discarded batches go to an encrypted queue that keeps them 14 days and takes only TLS', () => {
    const { template, stack } = stage();
    const queue = logicalId(stack.syncWatch.deadLetters);
    const resource = template.findResources('AWS::SQS::Queue')[queue];
    expect(resource?.Properties).toEqual({
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
    // Kept with prod's data when its stack goes, as its tables are; staging's goes with its stack.
    const kept = !STAGES[stageName].disposableData;
    expect(resource?.DeletionPolicy).toBe(kept ? 'Retain' : 'Delete');
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [ref(stack.syncWatch.deadLetters)],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  test('it is not released through CodeDeploy: no hook, no deployment group, no rollback alarm', () => {
    const { stack } = stage();
    expect(Object.keys(stack.releases.hooks)).not.toContain('sync-watch');
    expect(Object.keys(stack.releases.groups)).not.toContain('sync-watch');
    expect(Object.keys(stack.alarms.rollback)).not.toContain('sync-watch');
  });

  const business = (name: string, statistic: string) => ({
    Namespace: METRICS_NAMESPACE,
    MetricName: name,
    Dimensions: Match.arrayWith([{ Name: 'stage', Value: stageName }]),
    Statistic: statistic,
  });

  test('an alarm fires when a change may have landed later than the walks allow, or was stamped ahead of AWS', () => {
    const { template } = stage();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...business(BUSINESS_METRICS.changeLateness.name, 'Maximum'),
      Threshold: ALLOWANCE_MS,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    // The allowance is what the settling time leaves: the writer's clock, its attempt and the landing margin.
    expect(ALLOWANCE_MS).toBe(SYNC_TIMING.clockErrorMs + REQUEST_TIMEOUT_MS + SYNC_TIMING.unansweredLandingMs);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...business(BUSINESS_METRICS.changesStampedAhead.name, 'Sum'),
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  test('an alarm fires when the watch falls behind its stream, fails, or gives up on a batch', () => {
    const { template, stack } = stage();
    const fn = ref(stack.functions['sync-watch'].function);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: fn }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: WATCH.iteratorAgeAlarmSeconds * 1000,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: fn }],
      Threshold: 1,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack.syncWatch.deadLetters), 'QueueName'] } },
      ],
      Threshold: 1,
    });
  });
});
