// Environment-agnostic stacks: synthesis needs no account, no credentials and no lookups. The
// account and region come from the credentials `cdk deploy` runs with.

import { App } from 'aws-cdk-lib';
import { ContextFlagError } from './account-stack';
import { addServiceStacks } from './service-app';

try {
  addServiceStacks(new App());
} catch (error) {
  // A wrong -c flag is a command-line mistake: one line with the fix, exit 2, no stack trace.
  if (!(error instanceof ContextFlagError)) throw error;
  console.error(error.message);
  process.exit(2);
}
