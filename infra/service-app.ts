import { Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { STAGE_NAMES, stackNameFor, type StageName } from './outputs';
import { StoreOrdersStack } from './stack';
import { STAGES } from './stages';

/**
 * Adds one stack per stage, all from the same class, and the cdk-nag packs. Shared by the CDK app
 * and the tests, so the tests check exactly what `cdk synth` produces.
 */
export function addServiceStacks(scope: Construct): Record<StageName, StoreOrdersStack> {
  const stacks = {} as Record<StageName, StoreOrdersStack>;
  for (const stage of STAGE_NAMES) {
    stacks[stage] = new StoreOrdersStack(scope, stackNameFor(stage), { config: STAGES[stage] });
  }
  // Every finding is either fixed or explained next to its resource (infra/nag.ts); any other fails.
  Aspects.of(scope).add(new AwsSolutionsChecks());
  Aspects.of(scope).add(new ServerlessChecks());
  return stacks;
}
