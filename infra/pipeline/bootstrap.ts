// The CDK bootstrap resources the pipeline's roles work with, by the names the bootstrap template
// (node_modules/aws-cdk/lib/api/bootstrap/bootstrap-template.yaml) gives them, in the account and
// Region a stack is deployed to. Each stage has a bootstrap of its own (`cdk bootstrap --qualifier
// <its qualifier>`, lib/contract/deployment.ts): one bootstrap has one CloudFormation execution
// role (the template's CloudFormationExecutionRole, `cdk-${Qualifier}-cfn-exec-role-...`), so two
// stages sharing one would share what CloudFormation may do for them.
// https://docs.aws.amazon.com/cdk/v2/guide/ref-cli-cmd-bootstrap.html (--qualifier, --toolkit-stack-name)
import { Aws, DefaultStackSynthesizer } from 'aws-cdk-lib/core';
import { bootstrapQualifierFor, toolkitStackNameFor, type StageName } from '../../lib/contract/deployment';

const WHERE = `${Aws.ACCOUNT_ID}-${Aws.REGION}`;

export interface BootstrapResources {
  qualifier: string;
  /** The stack `cdk bootstrap` made; cdk reads its outputs when it cannot read the version parameter. */
  toolkitStackName: string;
  /** The asset bucket: Lambda bundles and the templates cdk uploads. */
  assetsBucket: string;
  /** The role CloudFormation deploys with: its policies are `--cloudformation-execution-policies`. */
  executionRoleArn: string;
  /** The parameter cdk reads, and CloudFormation resolves in the template, to check the bootstrap version. */
  versionParameterArn: string;
}

function resources(qualifier: string, toolkitStackName: string): BootstrapResources {
  return {
    qualifier,
    toolkitStackName,
    assetsBucket: `cdk-${qualifier}-assets-${WHERE}`,
    executionRoleArn: `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/cdk-${qualifier}-cfn-exec-role-${WHERE}`,
    versionParameterArn: `arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter/cdk-bootstrap/${qualifier}/version`,
  };
}

/** A stage's own bootstrap. */
export function stageBootstrap(stage: StageName): BootstrapResources {
  return resources(bootstrapQualifierFor(stage), toolkitStackNameFor(stage));
}

/**
 * The default bootstrap (`cdk bootstrap`, qualifier hnb659fds, stack CDKToolkit), kept by the
 * account's administrators for the stacks only they deploy: StoreOrders-pipeline and StoreOrders-account.
 */
export const ADMIN_BOOTSTRAP = resources(DefaultStackSynthesizer.DEFAULT_QUALIFIER, 'CDKToolkit');

/**
 * Every bootstrap role of the account (deploy, file publishing, lookup, ... of any qualifier),
 * which any principal of the account allowed to may assume: the pipeline's roles are refused
 * sts:AssumeRole on them, since a bootstrap deploy role may deploy any stack with its execution
 * role and the bootstrap lookup role has ReadOnlyAccess (DynamoDB Scan, logs).
 */
export const BOOTSTRAP_ROLES_ARN = `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/cdk-*`;
