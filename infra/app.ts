// Environment-agnostic stacks: synthesis needs no account, no credentials and no lookups. The
// account and region come from the credentials `cdk deploy` runs with.

import { App } from 'aws-cdk-lib/core';
import { alarmTopicArn, AlarmTopicError, STAGE_NAMES } from '../lib/contract/deployment';
import { cloudWatchRoleMode, ContextFlagError } from './cloudwatch-role-mode';
import { accountStages } from './pipeline/account-stages';
import { permissionsBoundaryMode } from './pipeline/boundary-mode';
import { githubRepository, oidcProviderMode } from './pipeline/github-repository';

const app = new App();
try {
  cloudWatchRoleMode(app);
  githubRepository(app);
  oidcProviderMode(app);
  permissionsBoundaryMode(app);
  accountStages(app);
  for (const stage of STAGE_NAMES) alarmTopicArn(stage, process.env);
} catch (error) {
  // A wrong -c flag or alarm topic is a command-line mistake: one line with the fix, exit 2, no stack trace.
  if (!(error instanceof ContextFlagError || error instanceof AlarmTopicError)) throw error;
  console.error(error.message);
  process.exit(2);
}
// Loaded only once the command line is known to be right: the stacks' modules take seconds to load.
const { addServiceStacks } = await import('./service-app');
const { addPipelineStack } = await import('./pipeline/pipeline-app');
addServiceStacks(app);
addPipelineStack(app);
