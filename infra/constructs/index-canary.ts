// The index-lag canary's schedule and alarms (docs/design.md#the-index-lag-canary). EventBridge
// Scheduler runs it: AWS calls EventBridge's scheduled rules "a legacy feature" and recommends
// Scheduler for invoking targets on a schedule
// (docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-rule-schedule.html). Scheduler invokes
// a Lambda function asynchronously, through an execution role it assumes
// (docs.aws.amazon.com/lambda/latest/dg/with-eventbridge-scheduler.html); a rate of one minute, with
// no flexible time window ("If you do not want to set this option, specify OFF",
// docs.aws.amazon.com/scheduler/latest/UserGuide/managing-schedule-flexible-time-windows.html), so
// runs come at their time. What each alarm means and what an operator does:
// docs/operations.md#the-index-lag-canary.
import { Duration } from 'aws-cdk-lib/core';
import { ComparisonOperator, Metric, TreatMissingData, type AlarmProps } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../../lib/commons/service';
import type { StageName } from '../../lib/contract/deployment';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { BUSINESS_METRICS, MEASURED_INDEXES, METRICS_NAMESPACE } from '../../lib/edge/metrics';
import { pascalCase } from './names';

export interface IndexCanaryScheduleProps {
  /** What the schedule invokes: the canary's live alias. */
  target: IFunction;
  periodSeconds: number;
}

/** A run that cannot be delivered within its period gives way to the next one. */
const RUN_MAX_AGE = Duration.minutes(1);
const RUN_RETRIES = 2;

export class IndexCanarySchedule extends Construct {
  readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: IndexCanaryScheduleProps) {
    super(scope, id);
    this.schedule = new Schedule(this, 'Schedule', {
      description: "The index-lag canary: a probe on the orders table's sentinel, read back through each index",
      schedule: ScheduleExpression.rate(Duration.seconds(props.periodSeconds)),
      timeWindow: TimeWindow.off(),
      target: new LambdaInvoke(props.target, { maxEventAge: RUN_MAX_AGE, retryAttempts: RUN_RETRIES }),
    });
  }
}

/** The lag is measured to the minute: its alarms look at one-minute periods. */
const PERIOD = Duration.minutes(1);

/** The canary's alarms, by id: the lag over the budget on each index, and the canary itself silent. */
export function indexCanaryAlarms(stage: StageName): Record<string, AlarmProps> {
  const lag = (index: string, statistic: string) =>
    new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: BUSINESS_METRICS.indexLag.name,
      dimensionsMap: { service: SERVICE_NAME, stage, index },
      statistic,
      period: PERIOD,
    });
  const [first = ''] = MEASURED_INDEXES;
  return {
    ...Object.fromEntries(
      MEASURED_INDEXES.map((index) => [
        `IndexLagOverBudget${pascalCase(index)}`,
        {
          alarmDescription:
            `The ${index} index of the orders table showed a write more than ${SYNC_TIMING.indexLagMs / 1000} s after it reached the table: ` +
            'v2 walks hold their watermark back meanwhile, and the sync watch re-stamps the changes of the episode once it is back (docs/operations.md#the-index-lag-canary).',
          metric: lag(index, 'Maximum'),
          threshold: SYNC_TIMING.indexLagMs,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        } satisfies AlarmProps,
      ]),
    ),
    IndexCanarySilent: {
      alarmDescription:
        'The index-lag canary measured nothing in two of the last three minutes: its schedule, its function or its reads fail. ' +
        'v2 walks vouch for nothing past its last probe seen until it runs again (docs/operations.md#the-index-lag-canary).',
      metric: lag(first, 'SampleCount'),
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      // No data point is exactly what this alarm is for.
      treatMissingData: TreatMissingData.BREACHING,
    },
  };
}
