// The index-lag canary as deployed (docs/design.md#the-index-lag-canary): an EventBridge Scheduler
// schedule that runs its live alias every minute, through a role that may invoke that alias and
// nothing else; alarms on each index's lag over the budget and on the canary falling silent; not
// released through CodeDeploy.
import { Match } from 'aws-cdk-lib/assertions';
import { SCHEDULES } from '../../lib/contract/deployment';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { BUSINESS_METRICS, MEASURED_INDEXES, METRICS_NAMESPACE } from '../../lib/edge/metrics';
import { SERVICE_NAME } from '../../lib/commons/service';
import { onlyResource, ref, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

describe.each(['staging', 'prod'] as const)('the index-lag canary in %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test('one schedule runs its live alias every minute, at its time, a run too late for its minute dropped', () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    expect(SCHEDULES['index-canary'].periodSeconds).toBe(60);
    const { resource } = onlyResource(template, 'AWS::Scheduler::Schedule', {});
    expect(resource.Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: ref(stack.functions['index-canary'].alias),
        RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 2 },
      },
    });
    // Unnamed: CloudFormation names it after the stack, which the execution policy scopes it by.
    expect(resource.Properties.Name).toBeUndefined();
  });

  test("its role is Scheduler's alone, for this account, and may invoke the canary's alias and nothing else", () => {
    const { template, stack } = stage();
    const { resource } = onlyResource(template, 'AWS::Scheduler::Schedule', {});
    const roleArn = (resource.Properties.Target as { RoleArn: { 'Fn::GetAtt': [string, string] } }).RoleArn;
    const roleId = roleArn['Fn::GetAtt'][0];
    const role = template.findResources('AWS::IAM::Role')[roleId];
    expect(role?.Properties?.AssumeRolePolicyDocument).toMatchObject({
      Statement: [
        {
          Effect: 'Allow',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Action: 'sts:AssumeRole',
          // Only this account's schedules may use it (the confused deputy, IAM's guide).
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        },
      ],
    });
    const own = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties?.Roles).includes(`"${roleId}"`),
    );
    const statements = own.flatMap(
      (policy) =>
        (policy.Properties?.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }).Statement,
    );
    expect(statements).toEqual([
      expect.objectContaining({
        Action: 'lambda:InvokeFunction',
        Resource: ref(stack.functions['index-canary'].alias),
      }),
    ]);
  });

  test('it is not released through CodeDeploy: no hook, no deployment group, no rollback alarm', () => {
    const { stack } = stage();
    expect(Object.keys(stack.releases.hooks)).not.toContain('index-canary');
    expect(Object.keys(stack.releases.groups)).not.toContain('index-canary');
    expect(Object.keys(stack.alarms.rollback)).not.toContain('index-canary');
  });

  const lag = (index: string, statistic: string) => ({
    Namespace: METRICS_NAMESPACE,
    MetricName: BUSINESS_METRICS.indexLag.name,
    Dimensions: Match.arrayWith([
      { Name: 'index', Value: index },
      { Name: 'service', Value: SERVICE_NAME },
      { Name: 'stage', Value: stageName },
    ]),
    Statistic: statistic,
    Period: 60,
  });

  test.each(MEASURED_INDEXES)('an alarm fires when %s lags more than the budget, minute by minute', (index) => {
    stage().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...lag(index, 'Maximum'),
      Threshold: SYNC_TIMING.indexLagMs,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  test('an alarm fires when the canary measures nothing in two minutes of three: missing data is the breach', () => {
    const [first = ''] = MEASURED_INDEXES;
    stage().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...lag(first, 'SampleCount'),
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'breaching',
    });
  });
});
