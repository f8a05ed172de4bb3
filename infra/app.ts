import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { STAGE_NAMES, stackNameFor } from './outputs';
import { StoreOrdersStack } from './stack';
import { STAGES } from './stages';

/**
 * Environment-agnostic stacks: synthesis needs no account, no credentials and no lookups. The
 * account and region come from the credentials `cdk deploy` runs with.
 */
const app = new App();
for (const stage of STAGE_NAMES) {
  new StoreOrdersStack(app, stackNameFor(stage), { config: STAGES[stage] });
}
// Every finding is either fixed or explained next to the resource (infra/nag.ts); a new one fails synthesis.
Aspects.of(app).add(new AwsSolutionsChecks());
Aspects.of(app).add(new ServerlessChecks());
