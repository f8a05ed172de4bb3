// What the pipeline's jobs call in AWS, action by action, as IAM statements. Derived from the
// commands themselves: `cdk deploy`/`cdk diff` (tools/deploy, with its preflight), the smoke test
// and its clean-up (tools/smoke, through the admin command's tools/admin/stage.ts).
import { Aws } from 'aws-cdk-lib/core';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  ACCOUNT_STACK_NAME,
  stackNameFor,
  STREAMING_PROBE_FUNCTION,
  type StageName,
} from '../../lib/contract/deployment';
import { ASSETS_BUCKET, EXECUTION_ROLE_ARN, VERSION_PARAMETER_ARN } from './bootstrap';

const stackArn = (stackName: string) =>
  `arn:${Aws.PARTITION}:cloudformation:${Aws.REGION}:${Aws.ACCOUNT_ID}:stack/${stackName}/*`;
const apiGateway = (path: string) => `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::${path}`;

/** The change set `cdk deploy` creates, executes and deletes on the stack it deploys. */
const CDK_CHANGE_SET = 'cdk-deploy-change-set';

/**
 * What `cdk deploy` does on the stacks it deploys. CDK's own deploy role (the bootstrap template's
 * DeploymentActionRole) grants the same for the same job; test/infra/pipeline.spec.ts compares them.
 * RollbackStack, ContinueUpdateRollback and DeleteStack: cdk deletes a stack left in
 * ROLLBACK_COMPLETE by a failed first create before creating it again, and rolls back or continues
 * the rollback of a stack stuck in UPDATE_ROLLBACK_FAILED, so a failed run can be run again
 * without an administrator. (The prod tables are retained and deletion-protected: deleting the
 * stack does not delete them.)
 */
export const CDK_DEPLOY_STACK_ACTIONS = [
  'cloudformation:DescribeStacks',
  'cloudformation:DescribeStackEvents',
  'cloudformation:GetTemplate',
  'cloudformation:GetTemplateSummary',
  'cloudformation:ListStackResources',
  'cloudformation:CreateChangeSet',
  'cloudformation:DescribeChangeSet',
  'cloudformation:ExecuteChangeSet',
  'cloudformation:DeleteChangeSet',
  'cloudformation:DeleteStack',
  'cloudformation:RollbackStack',
  'cloudformation:ContinueUpdateRollback',
] as const;

/**
 * The bootstrap version: cdk reads it (GetParameter), and CloudFormation resolves the
 * `BootstrapVersion` SSM parameter of the template during CreateChangeSet with the caller's
 * credentials (GetParameters), as the comment on CDK's own deploy role says.
 */
export const CDK_VERSION_PARAMETER_ACTIONS = ['ssm:GetParameter', 'ssm:GetParameters'] as const;

/**
 * CloudFormation and SSM actions of CDK's deploy role the pipeline's deploy does without, each
 * with the reason. Anything else CDK's role grants for a deploy, ours grants too (the test).
 */
export const CDK_DEPLOY_ACTIONS_NOT_NEEDED: Record<string, string> = {
  'cloudformation:CreateStack': 'cdk deploy creates a stack through a change set (its default --method=change-set)',
  'cloudformation:UpdateStack': 'cdk deploy updates a stack through a change set (its default --method=change-set)',
  'cloudformation:UpdateTerminationProtection': 'no stack of the app sets termination protection',
  'cloudformation:CreateStackRefactor': 'cdk refactor, which the pipeline never runs',
  'cloudformation:ExecuteStackRefactor': 'cdk refactor, which the pipeline never runs',
};

/** The stacks a stage's deploy touches: its own, and the account stack cdk deploys first. */
export function deployedStacks(stage: StageName): string[] {
  return [stackNameFor(stage), ACCOUNT_STACK_NAME];
}

/**
 * Preflight (tools/deploy/preflight.ts) of these stages: the account's unreserved concurrency (no
 * resource-level permission), what the stage's deployed functions reserve already (its stack's
 * functions, then each one's reservation), and an invocation of a function that never exists,
 * which asks only whether the Region streams.
 */
export function preflightStatements(stages: readonly StageName[]): PolicyStatement[] {
  return [
    new PolicyStatement({ actions: ['lambda:GetAccountSettings'], resources: ['*'] }),
    new PolicyStatement({
      actions: ['cloudformation:ListStackResources'],
      resources: stages.map((stage) => stackArn(stackNameFor(stage))),
    }),
    // CloudFormation names a stack's functions after the stack.
    new PolicyStatement({
      actions: ['lambda:GetFunctionConcurrency'],
      resources: stages.map(
        (stage) => `arn:${Aws.PARTITION}:lambda:${Aws.REGION}:${Aws.ACCOUNT_ID}:function:${stackNameFor(stage)}-*`,
      ),
    }),
    new PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: [`arn:${Aws.PARTITION}:lambda:${Aws.REGION}:${Aws.ACCOUNT_ID}:function:${STREAMING_PROBE_FUNCTION}`],
    }),
  ];
}

/**
 * `cdk deploy` of one stage with the role's own credentials (it is given no bootstrap role to
 * assume): a change set on the stage's stacks only, executed by the bootstrap's CloudFormation
 * execution role, with the assets published to the bootstrap bucket.
 */
export function deployStatements(stage: StageName): PolicyStatement[] {
  const stacks = deployedStacks(stage).map(stackArn);
  return [
    new PolicyStatement({
      actions: [...CDK_DEPLOY_STACK_ACTIONS],
      resources: [
        ...stacks,
        `arn:${Aws.PARTITION}:cloudformation:${Aws.REGION}:${Aws.ACCOUNT_ID}:changeSet/${CDK_CHANGE_SET}/*`,
      ],
    }),
    // Only to CloudFormation: the deploy role cannot hand the execution role to anything else.
    new PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [EXECUTION_ROLE_ARN],
      conditions: { StringEquals: { 'iam:PassedToService': 'cloudformation.amazonaws.com' } },
    }),
    new PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject', 's3:ListBucket', 's3:GetBucketLocation'],
      resources: [`arn:${Aws.PARTITION}:s3:::${ASSETS_BUCKET}`, `arn:${Aws.PARTITION}:s3:::${ASSETS_BUCKET}/*`],
    }),
    new PolicyStatement({ actions: [...CDK_VERSION_PARAMETER_ACTIONS], resources: [VERSION_PARAMETER_ARN] }),
    // Where cdk looks the bootstrap up when it cannot read it from the assembly.
    new PolicyStatement({ actions: ['cloudformation:DescribeStacks'], resources: [stackArn('CDKToolkit')] }),
    ...preflightStatements([stage]),
  ];
}

/**
 * The smoke test of one stage (and `--clean-up`): the stack's outputs, throwaway API Gateway keys
 * in the stage's usage plans (made, looked up by name, unbound and deleted), and the stage's
 * tables (key records, limiter counters read by `keys usage`, and, with --allow-writes, its own orders).
 */
export function smokeStatements(stage: StageName): PolicyStatement[] {
  return [
    new PolicyStatement({ actions: ['cloudformation:DescribeStacks'], resources: [stackArn(stackNameFor(stage))] }),
    new PolicyStatement({
      actions: ['apigateway:POST'],
      resources: [apiGateway('/apikeys'), apiGateway('/usageplans/*/keys')],
    }),
    new PolicyStatement({ actions: ['apigateway:GET'], resources: [apiGateway('/apikeys')] }),
    // DeleteUsagePlanKey (the binding) comes before DeleteApiKey: both are needed to revoke a key.
    new PolicyStatement({
      actions: ['apigateway:DELETE'],
      resources: [apiGateway('/apikeys/*'), apiGateway('/usageplans/*/keys/*')],
    }),
    new PolicyStatement({
      actions: [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:Scan',
      ],
      resources: [`arn:${Aws.PARTITION}:dynamodb:${Aws.REGION}:${Aws.ACCOUNT_ID}:table/${stackNameFor(stage)}-*`],
    }),
  ];
}

/** `cdk diff --method template` of every stage, read through the custom lookup role. */
export function lookupStatements(stackNames: readonly string[]): PolicyStatement[] {
  return [
    new PolicyStatement({
      actions: ['cloudformation:DescribeStacks', 'cloudformation:GetTemplate', 'cloudformation:ListStackResources'],
      resources: stackNames.map(stackArn),
    }),
    new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [VERSION_PARAMETER_ARN] }),
  ];
}

/** A statement that refuses, for the record: what a role must never do, whatever else it is granted. */
export function denyStatement(actions: string[], resources: string[]): PolicyStatement {
  return new PolicyStatement({ effect: Effect.DENY, actions, resources });
}
