// The CDK bootstrap resources (`cdk bootstrap`, default qualifier) the pipeline's roles work with,
// by the names the bootstrap template gives them, in the account and Region a stack is deployed to.
import { Aws, DefaultStackSynthesizer } from 'aws-cdk-lib/core';

const QUALIFIER = DefaultStackSynthesizer.DEFAULT_QUALIFIER;
const WHERE = `${Aws.ACCOUNT_ID}-${Aws.REGION}`;

/** The asset bucket: Lambda bundles and templates too large to pass inline. */
export const ASSETS_BUCKET = `cdk-${QUALIFIER}-assets-${WHERE}`;

/** The role CloudFormation deploys with: its policies are `--cloudformation-execution-policies`. */
export const EXECUTION_ROLE_ARN = `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/cdk-${QUALIFIER}-cfn-exec-role-${WHERE}`;

/** The parameter cdk reads to check the bootstrap is recent enough. */
export const VERSION_PARAMETER_ARN = `arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter/cdk-bootstrap/${QUALIFIER}/version`;

/**
 * The bootstrap's own roles (deploy, file publishing, lookup, ...), which any principal of the
 * account allowed to may assume: the pipeline's roles get no sts:AssumeRole on them, since the
 * deploy role can deploy every stack and the lookup role has ReadOnlyAccess (DynamoDB Scan, logs).
 */
export const BOOTSTRAP_ROLES_ARN = `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/cdk-${QUALIFIER}-*`;
