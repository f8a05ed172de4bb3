import { Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { ApiGatewayAccountStack } from './account-stack';
import { ACCOUNT_STACK_NAME, STAGE_NAMES, stackNameFor, type StageName } from './outputs';
import { StoreOrdersStack } from './stack';
import { STAGES } from './stages';

export interface ServiceStacks {
  account: ApiGatewayAccountStack;
  stages: Record<StageName, StoreOrdersStack>;
}

/**
 * Adds the account-settings stack, one stack per stage (all from the same class, each depending on
 * the account stack, whose CloudWatch role its execution logging needs), and the cdk-nag packs.
 * Shared by the CDK app and the tests, so the tests check exactly what `cdk synth` produces.
 */
export function addServiceStacks(scope: Construct): ServiceStacks {
  const account = new ApiGatewayAccountStack(scope, ACCOUNT_STACK_NAME);
  const stages = {} as Record<StageName, StoreOrdersStack>;
  for (const stage of STAGE_NAMES) {
    stages[stage] = new StoreOrdersStack(scope, stackNameFor(stage), { config: STAGES[stage] });
    stages[stage].addStackDependency(account, 'execution logging needs the account-level CloudWatch role');
  }
  // Every finding is either fixed or explained next to its resource (infra/nag.ts); any other fails.
  Aspects.of(scope).add(new AwsSolutionsChecks());
  Aspects.of(scope).add(new ServerlessChecks());
  return { account, stages };
}
