// The permissions boundary of every role of a stage: its functions' and release hooks' roles, its
// CodeDeploy role, and its deploy role. The pipeline stack creates one per stage; the stage stack
// applies its own to every role it makes, and the stage's CloudFormation execution role may create
// or change a role only with it (infra/pipeline/execution-policy.ts), so a template deployed for
// the stage cannot make a role that does more than this: no IAM change at all, and only that
// stage's resources. test/infra/stage-isolation.spec.ts evaluates each role with its boundary in
// an IAM policy simulator: what the role needs is allowed, nothing of the other stage is.
// A boundary grants nothing by itself; it caps what identity policies grant, and what a resource
// policy grants to the role's ARN.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html
import { Aws } from 'aws-cdk-lib/core';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { StageName } from '../../lib/contract/deployment';
import { otherStageTagDenials } from './execution-policy';
import { generatedNamePrefix, taggedFor } from './names';
import { deployRolePolicies } from './permissions';
import { streamBoundaryStatements } from './stream-permissions';
import { queueBoundaryStatements } from './queue-permissions';

const arn = (service: string, resource: string) =>
  `arn:${Aws.PARTITION}:${service}:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}`;

/**
 * What the stage's functions, release hooks and CodeDeploy role (AWSCodeDeployRoleForLambdaLimited:
 * DescribeAlarms, GetAlias, UpdateAlias, GetProvisionedConcurrencyConfig) do at run time.
 * https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSCodeDeployRoleForLambdaLimited.html
 */
function runtimeStatements(stage: StageName): PolicyStatement[] {
  const generated = generatedNamePrefix(stage);
  return [
    new PolicyStatement({ actions: ['dynamodb:*'], resources: [arn('dynamodb', `table/${generated}*`)] }),
    new PolicyStatement({ actions: ['lambda:*'], resources: [arn('lambda', `function:${generated}*`)] }),
    new PolicyStatement({ actions: ['logs:*'], resources: [arn('logs', `log-group:${generated}*`)] }),
    new PolicyStatement({
      actions: ['cloudwatch:DescribeAlarms'],
      resources: [arn('cloudwatch', `alarm:${generated}*`)],
    }),
    // The secrets' ARNs carry no stage: their tag does.
    new PolicyStatement({
      actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
      resources: [arn('secretsmanager', 'secret:*')],
      conditions: taggedFor(stage),
    }),
    // The sync watch's role: its mapping reads the orders table's stream (the tables' grant covers
    // `table/<name>/stream/*`) and sends a batch it gives up on to the dead-letter queue.
    ...streamBoundaryStatements(stage),
    // Event delivery: its worker reads its queue, which it and the fan-out and the endpoints' test route send to.
    ...queueBoundaryStatements(stage),
    // Actions with no resource type (the Service Authorization Reference): a hook reports its
    // result (list_awscodedeploy.html), functions trace and publish metrics.
    new PolicyStatement({
      actions: [
        'codedeploy:PutLifecycleEventHookExecutionStatus',
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        'cloudwatch:PutMetricData',
        'lambda:GetAccountSettings',
      ],
      resources: ['*'],
    }),
  ];
}

export function boundaryStatements(stage: StageName): PolicyStatement[] {
  return [
    ...runtimeStatements(stage),
    // The stage's deploy role: deploy, smoke-test and clean up that stage, and read and store its
    // release canary key (that stage's canary secret alone: canary-key-permissions.ts), with its refusals.
    ...Object.values(deployRolePolicies(stage)).flat(),
    ...otherStageTagDenials(stage),
  ];
}
