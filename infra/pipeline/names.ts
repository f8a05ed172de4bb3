// The fixed names of the pipeline's IAM roles and policies, and the names a stage's resources carry:
// the workflow's variables, the stages' cdk lookups, the execution policies' conditions and the
// permissions boundaries name them. Apart from the stack so that the policies can name them without
// importing it.
import { Aws } from 'aws-cdk-lib/core';
import { stackNameFor, type StageName } from '../../lib/contract/deployment';

export const PIPELINE_ROLE_NAMES = {
  deploy: (stage: StageName) => `store-orders-${stage}-deploy`,
  diff: 'store-orders-diff',
  lookup: 'store-orders-cdk-lookup',
  /** What the stage's CloudFormation execution role may do (infra/pipeline/execution-policy.ts). */
  executionPolicy: (stage: StageName) => `store-orders-${stage}-cfn-execution`,
  /** The most any role of the stage may do (infra/pipeline/permissions-boundary.ts). */
  permissionsBoundary: (stage: StageName) => `store-orders-${stage}-permissions-boundary`,
} as const;

const policyArn = (name: string) => `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:policy/${name}`;

export const executionPolicyArn = (stage: StageName) => policyArn(PIPELINE_ROLE_NAMES.executionPolicy(stage));
export const permissionsBoundaryArn = (stage: StageName) => policyArn(PIPELINE_ROLE_NAMES.permissionsBoundary(stage));
/** Every policy of the project (both stages' execution policies and boundaries). */
export const PROJECT_POLICIES_ARN = policyArn('store-orders-*');
export const LOOKUP_ROLE_ARN = `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/${PIPELINE_ROLE_NAMES.lookup}`;

/**
 * The start of every name CloudFormation generates in a stage's stack (`<stack name>-<logical
 * id>-<suffix>`: functions, tables, roles, log groups, alarms, topics, deployment groups): the
 * trailing hyphen keeps `StoreOrders-prod-` from matching a stage whose name starts with `prod`.
 */
export const generatedNamePrefix = (stage: StageName) => `${stackNameFor(stage)}-`;

/** The names the stage stack gives resources itself: its CodeDeploy application, dashboard, APIs, usage plans. */
export const projectNamePrefix = (stage: StageName) => `store-orders-${stage}`;

/**
 * The tag naming a resource's stage, on the resources whose ARNs carry an id rather than a name
 * of the stage: secrets (named `<logical id>-<suffix>`), REST APIs, their stages and other children, usage plans
 * and their keys, custom domain names, log groups (API Gateway's execution log groups are
 * named after the API id), and Lambda's event source mappings. The execution policies and boundaries refuse a stage the resources
 * tagged with another stage's name, and any change of this tag to another stage.
 */
export const STAGE_TAG = 'store-orders:stage';

/** The condition a request on a resource tagged for the stage meets. */
export function taggedFor(stage: StageName): { StringEquals: Record<string, string> } {
  return { StringEquals: { [`aws:ResourceTag/${STAGE_TAG}`]: stage } };
}

/** The resource types of a stage stack that carry STAGE_TAG (each stage stack tags its own). */
export const STAGE_TAGGED_TYPES = [
  'AWS::SecretsManager::Secret',
  'AWS::ApiGateway::RestApi',
  // Its own tag as well as its API's: WAF's association with a stage is authorized as
  // apigateway:SetWebACL on the stage's ARN.
  'AWS::ApiGateway::Stage',
  'AWS::ApiGateway::UsagePlan',
  'AWS::ApiGateway::DomainName',
  'AWS::Logs::LogGroup',
  // `event-source-mapping:<uuid>`: its tag, and the function it invokes, say its stage (stream-permissions.ts).
  'AWS::Lambda::EventSourceMapping',
] as const;
