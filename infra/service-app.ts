import { Aspects, Fn, Tags, type Stack } from 'aws-cdk-lib/core';
import { ManagedPolicy, PermissionsBoundary } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import {
  ACCOUNT_STACK_NAME,
  CLOUDWATCH_ROLE_OUTPUT,
  STAGE_NAMES,
  stackNameFor,
  type StageName,
} from '../lib/contract/deployment';
import { ApiGatewayAccountStack } from './account-stack';
import { cloudWatchRoleMode } from './cloudwatch-role-mode';
import { permissionsBoundaryMode } from './pipeline/boundary-mode';
import { PIPELINE_ROLE_NAMES, STAGE_TAG, STAGE_TAGGED_TYPES } from './pipeline/names';
import { serviceSynthesizer } from './pipeline/pipeline-app';
import { StoreOrdersStack } from './stack';
import { stageConfig } from './stages';

/** The tag on each stage's execution log group naming the CloudWatch role its logging relies on. */
export const EXECUTION_LOGGING_ROLE_TAG = 'store-orders:execution-logging-role';

export interface ServiceStacks {
  /** Absent with `-c apiGatewayCloudWatchRole=keep`: the account's role is left alone. */
  account?: ApiGatewayAccountStack;
  stages: Record<StageName, StoreOrdersStack>;
}

/**
 * Adds the account-settings stack (unless the account's CloudWatch role is to be kept), one stack
 * per stage (all from the same class), and the cdk-nag packs. Each stage stack is deployed through
 * its own bootstrap, carries its own permissions boundary on its roles and its stage's tag on the
 * resources whose ARNs do not name it (infra/pipeline/names.ts). Each stage depends on the account
 * stack twice over: in the assembly (`cdk deploy` without `--exclusively` deploys the account
 * stack first; the pipeline's deploy of a stage never does, an administrator owns that stack) and
 * in its own template, whose execution log group, created before the stage, is tagged with the role read
 * from the account stack's output (Fn::GetStackOutput, which locks nothing), so a stage
 * template deployed without the account stack fails on that read, naming the stack, instead of on
 * the stage with "CloudWatch Logs role ARN must be set". Shared by the CDK app and the tests, so
 * the tests check exactly what `cdk synth` produces. `env` names the stages' alarm topics
 * (`<STAGE>_ALARM_TOPIC_ARN`).
 */
export function addServiceStacks(
  scope: Construct,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ServiceStacks {
  const account =
    cloudWatchRoleMode(scope) === 'create'
      ? new ApiGatewayAccountStack(scope, ACCOUNT_STACK_NAME, { synthesizer: serviceSynthesizer() })
      : undefined;
  const stages = {} as Record<StageName, StoreOrdersStack>;
  for (const stage of STAGE_NAMES) {
    stages[stage] = new StoreOrdersStack(scope, stackNameFor(stage), {
      config: stageConfig(stage, env),
      synthesizer: serviceSynthesizer(stage),
    });
    Tags.of(stages[stage]).add(STAGE_TAG, stage, { includeResourceTypes: [...STAGE_TAGGED_TYPES] });
    if (account) {
      stages[stage].addStackDependency(account, 'execution logging needs the account-level CloudWatch role');
      // Each API's stage (v1, v2) is made after its own execution log group: each group is tagged.
      for (const api of stages[stage].apis) {
        Tags.of(api.executionLogs).add(
          EXECUTION_LOGGING_ROLE_TAG,
          Fn.getStackOutput(account.stackName, CLOUDWATCH_ROLE_OUTPUT),
        );
      }
    }
  }
  if (permissionsBoundaryMode(scope) === 'pipeline') {
    for (const stage of STAGE_NAMES) applyPermissionsBoundary(stages[stage], stage);
  }
  // Every finding is either fixed or explained next to its resource (infra/nag.ts); any other fails.
  Aspects.of(scope).add(new AwsSolutionsChecks());
  Aspects.of(scope).add(new ServerlessChecks());
  return { account, stages };
}

/**
 * The stage's permissions boundary (made by the pipeline stack) on every role of the stage's
 * stack: the stage's CloudFormation execution role may create a role only with it
 * (infra/pipeline/execution-policy.ts). The account stack is deployed by an administrator, with
 * the account's default bootstrap, so its role needs none.
 */
function applyPermissionsBoundary(stack: Stack, stage: StageName): void {
  PermissionsBoundary.of(stack).apply(
    ManagedPolicy.fromManagedPolicyName(stack, 'PermissionsBoundary', PIPELINE_ROLE_NAMES.permissionsBoundary(stage)),
  );
}
