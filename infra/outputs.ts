// The contract between the CDK stack and whatever reads a deployed stage (the admin command's
// `--stage`, via CloudFormation DescribeStacks). Kept free of aws-cdk-lib so that readers do not
// load the CDK.

import type { PlanName } from '../lib/contract/plans';
import type { TableId } from '../lib/contract/tables';

export const STAGE_NAMES = ['staging', 'prod'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export function isStageName(value: unknown): value is StageName {
  return typeof value === 'string' && (STAGE_NAMES as readonly string[]).includes(value);
}

export function stackNameFor(stage: StageName): string {
  return `StoreOrders-${stage}`;
}

/** The stack that owns API Gateway's account-wide settings, shared by the stages of an account. */
export const ACCOUNT_STACK_NAME = 'StoreOrders-account';

/** The base URL clients use: the custom domain when one is configured, else the execute-api URL. */
export const API_URL_OUTPUT = 'ApiUrl';
export const EXECUTE_API_URL_OUTPUT = 'ExecuteApiUrl';
export const REST_API_ID_OUTPUT = 'RestApiId';
/** The stage's CloudWatch dashboard in the console. */
export const DASHBOARD_URL_OUTPUT = 'DashboardUrl';

/** Output keys must be alphanumeric, so they are spelled out rather than derived from table ids. */
export const TABLE_NAME_OUTPUTS: Record<TableId, string> = {
  orders: 'OrdersTableName',
  apiKeys: 'ApiKeysTableName',
  rateLimits: 'RateLimitsTableName',
};

export const USAGE_PLAN_ID_OUTPUTS: Record<PlanName, string> = {
  free: 'UsagePlanIdFree',
  pro: 'UsagePlanIdPro',
  business: 'UsagePlanIdBusiness',
  enterprise: 'UsagePlanIdEnterprise',
};
