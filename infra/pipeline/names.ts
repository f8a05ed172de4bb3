// The fixed names of the pipeline's IAM roles and policies: the workflow's variables, the stages'
// cdk lookups, the execution policy's conditions and the permissions boundary name them. Apart from
// the stack so that the policies can name them without importing it.
import { Aws } from 'aws-cdk-lib/core';
import type { StageName } from '../../lib/contract/deployment';

export const PIPELINE_ROLE_NAMES = {
  deploy: (stage: StageName) => `store-orders-${stage}-deploy`,
  diff: 'store-orders-diff',
  lookup: 'store-orders-cdk-lookup',
  executionPolicy: 'store-orders-cfn-execution',
  /** The most any role the stacks make may do (infra/pipeline/permissions-boundary.ts). */
  permissionsBoundary: 'store-orders-permissions-boundary',
} as const;

const policyArn = (name: string) => `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:policy/${name}`;

export const EXECUTION_POLICY_ARN = policyArn(PIPELINE_ROLE_NAMES.executionPolicy);
export const PERMISSIONS_BOUNDARY_ARN = policyArn(PIPELINE_ROLE_NAMES.permissionsBoundary);
export const LOOKUP_ROLE_ARN = `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/${PIPELINE_ROLE_NAMES.lookup}`;

/** Stack-generated names start with the stack's name; the project's stacks all start so. */
export const STACK_PREFIX = 'StoreOrders-';
/** Names the project gives resources itself (CodeDeploy applications, dashboards, pipeline roles). */
export const NAME_PREFIX = 'store-orders-';
