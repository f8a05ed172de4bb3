// Environment-agnostic stacks: synthesis needs no account, no credentials and no lookups. The
// account and region come from the credentials `cdk deploy` runs with.

import { App } from 'aws-cdk-lib';
import { addServiceStacks } from './service-app';

addServiceStacks(new App());
