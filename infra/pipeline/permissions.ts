// What the pipeline's jobs call in AWS, action by action, as IAM statements, one set per stage.
// Derived from the commands themselves: `cdk deploy`/`cdk diff` (tools/deploy, with its preflight),
// the smoke test and its clean-up (tools/smoke, through the admin command's tools/admin/stage.ts),
// and the release canary key's `canary-key create` (canary-key-permissions.ts).
// A stage's deploy role is made of deployRolePolicies(stage), and so is the most its stage's
// permissions boundary lets any role do in the pipeline's line of work (permissions-boundary.ts):
// a statement added here reaches both.
import { Aws } from 'aws-cdk-lib/core';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { stackNameFor, STREAMING_PROBE_FUNCTION, type StageName } from '../../lib/contract/deployment';
import { STAGES } from '../stages';
import { BOOTSTRAP_ROLES_ARN, stageBootstrap } from './bootstrap';
import { canaryKeyStatements } from './canary-key-permissions';
import { generatedNamePrefix, taggedFor } from './names';

export const stackArn = (stackName: string) =>
  `arn:${Aws.PARTITION}:cloudformation:${Aws.REGION}:${Aws.ACCOUNT_ID}:stack/${stackName}/*`;
const apiGateway = (path: string) => `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::${path}`;
const bucketArns = (bucket: string) => [`arn:${Aws.PARTITION}:s3:::${bucket}`, `arn:${Aws.PARTITION}:s3:::${bucket}/*`];

/**
 * What `cdk deploy` does on the stack it deploys. CDK's own deploy role (the bootstrap template's
 * DeploymentActionRole) grants the same for the same job; test/infra/pipeline-permissions.spec.ts
 * compares them. RollbackStack, ContinueUpdateRollback and DeleteStack: cdk deletes a stack left in
 * ROLLBACK_COMPLETE by a failed first create before creating it again, and rolls back or continues
 * the rollback of a stack stuck in UPDATE_ROLLBACK_FAILED, so a failed run can be run again
 * without an administrator. DeleteStack is refused outright to a stage whose data is kept
 * (stackDeletionRefused). The change set actions have the stack as their only resource type (Service
 * Authorization Reference, list_awscloudformation.html), so they are granted on the stack.
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

/**
 * A stage whose tables and secrets outlive its stack (`disposableData: false` in infra/stages.ts)
 * may not have its stack deleted by the pipeline: the tables' names are generated, so a stack
 * deleted and created again would start on new, empty tables while the kept ones sit orphaned.
 * An administrator does it, deliberately (docs/deployment.md).
 */
export function stackDeletionRefused(stage: StageName): boolean {
  return !STAGES[stage].disposableData;
}

/**
 * The KMS key of the bootstrap buckets, through S3 only. A bucket is SSE-KMS (by default with the
 * AWS managed key aws/s3), so S3 asks KMS, on the caller's behalf, for a data key on upload and a
 * decryption on download, and the caller needs both on the key
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingKMSEncryption.html). aws/s3's key
 * policy grants any principal of the account the key through S3, which a boundary does not cut (a
 * grant to whoever calls, not to the role's ARN: access_policies_boundaries.html); a key given
 * with --bootstrap-kms-key-id may leave it to IAM (KMS's default key policy), and then the role's
 * policy and its boundary must both allow: so both do (docs/deployment.md, "KMS and the
 * permissions boundary"; test/infra/stage-isolation.spec.ts evaluates both). Through S3 only (kms:ViaService,
 * https://docs.aws.amazon.com/kms/latest/developerguide/conditions-kms.html#conditions-kms-via-service),
 * so they reach what the role's S3 permissions reach, its stage's bucket: as CDK's own deploy role
 * grants them (the bootstrap template's PipelineCrossAccountArtifactsKey).
 */
export function bucketKeyStatement(): PolicyStatement {
  return new PolicyStatement({
    actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
    resources: [`arn:${Aws.PARTITION}:kms:${Aws.REGION}:${Aws.ACCOUNT_ID}:key/*`],
    conditions: { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.amazonaws.com` } },
  });
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
        (stage) =>
          `arn:${Aws.PARTITION}:lambda:${Aws.REGION}:${Aws.ACCOUNT_ID}:function:${generatedNamePrefix(stage)}*`,
      ),
    }),
    new PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: [`arn:${Aws.PARTITION}:lambda:${Aws.REGION}:${Aws.ACCOUNT_ID}:function:${STREAMING_PROBE_FUNCTION}`],
    }),
  ];
}

/**
 * `cdk deploy --exclusively` of one stage with the role's own credentials (it is given no
 * bootstrap role to assume): a change set on the stage's stack only, executed by the stage's own
 * bootstrap's CloudFormation execution role, with the assets published to that bootstrap's bucket.
 */
export function deployStatements(stage: StageName): PolicyStatement[] {
  const bootstrap = stageBootstrap(stage);
  const stack = stackArn(stackNameFor(stage));
  return [
    new PolicyStatement({ actions: [...CDK_DEPLOY_STACK_ACTIONS], resources: [stack] }),
    ...(stackDeletionRefused(stage) ? [denyStatement(['cloudformation:DeleteStack'], [stack])] : []),
    // Only to CloudFormation: the deploy role cannot hand the execution role to anything else.
    new PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [bootstrap.executionRoleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'cloudformation.amazonaws.com' } },
    }),
    new PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject', 's3:ListBucket', 's3:GetBucketLocation'],
      resources: bucketArns(bootstrap.assetsBucket),
    }),
    bucketKeyStatement(),
    new PolicyStatement({ actions: [...CDK_VERSION_PARAMETER_ACTIONS], resources: [bootstrap.versionParameterArn] }),
    // Where cdk looks the bootstrap up when it cannot read the version parameter, and before it publishes assets.
    new PolicyStatement({
      actions: ['cloudformation:DescribeStacks'],
      resources: [stackArn(bootstrap.toolkitStackName)],
    }),
    ...preflightStatements([stage]),
  ];
}

/**
 * The smoke test of one stage (and `--clean-up`): the stack's outputs, throwaway API Gateway keys
 * in the stage's usage plans (made, looked up by name, unbound and deleted), and the stage's
 * tables (key records, limiter counters read by `keys usage`, and, with --allow-writes, its own
 * orders). A usage plan's keys take the plan's tags for access control (API Gateway's tag
 * inheritance, apigateway-tagging-supported-resources.html), so binding and unbinding are the
 * stage's plans only; API keys carry no stage, so creating and deleting them is not.
 */
export function smokeStatements(stage: StageName): PolicyStatement[] {
  return [
    new PolicyStatement({ actions: ['cloudformation:DescribeStacks'], resources: [stackArn(stackNameFor(stage))] }),
    new PolicyStatement({ actions: ['apigateway:POST', 'apigateway:GET'], resources: [apiGateway('/apikeys')] }),
    new PolicyStatement({ actions: ['apigateway:DELETE'], resources: [apiGateway('/apikeys/*')] }),
    // DeleteUsagePlanKey (the binding) comes before DeleteApiKey: both are needed to revoke a key.
    new PolicyStatement({
      actions: ['apigateway:POST'],
      resources: [apiGateway('/usageplans/*/keys')],
      conditions: taggedFor(stage),
    }),
    new PolicyStatement({
      actions: ['apigateway:DELETE'],
      resources: [apiGateway('/usageplans/*/keys/*')],
      conditions: taggedFor(stage),
    }),
    new PolicyStatement({
      actions: [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:Scan',
      ],
      resources: [`arn:${Aws.PARTITION}:dynamodb:${Aws.REGION}:${Aws.ACCOUNT_ID}:table/${generatedNamePrefix(stage)}*`],
    }),
  ];
}

/** What no pipeline role may do, whatever else it is granted: assume a bootstrap role. */
export function pipelineLimitStatements(): PolicyStatement[] {
  return [denyStatement(['sts:AssumeRole'], [BOOTSTRAP_ROLES_ARN])];
}

/**
 * The deploy role of a stage, policy by policy (the role's inline policies, and all of it the
 * stage's permissions boundary allows): a new job of the stage's pipeline is a new entry here.
 */
export function deployRolePolicies(stage: StageName): Record<string, PolicyStatement[]> {
  return {
    deploy: deployStatements(stage),
    smoke: smokeStatements(stage),
    canaryKey: canaryKeyStatements(stage),
    limits: pipelineLimitStatements(),
  };
}

/** `cdk diff --method template` of these stacks, read through the custom lookup role. */
export function lookupStatements(
  stackNames: readonly string[],
  versionParameters: readonly string[],
): PolicyStatement[] {
  return [
    new PolicyStatement({
      actions: ['cloudformation:DescribeStacks', 'cloudformation:GetTemplate', 'cloudformation:ListStackResources'],
      resources: stackNames.map(stackArn),
    }),
    new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [...versionParameters] }),
  ];
}

/** A statement that refuses, for the record: what a role must never do, whatever else it is granted. */
export function denyStatement(actions: string[], resources: string[]): PolicyStatement {
  return new PolicyStatement({ effect: Effect.DENY, actions, resources });
}
