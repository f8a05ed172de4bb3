// The policy a stage's CloudFormation execution role gets instead of AdministratorAccess
// (`cdk bootstrap --qualifier <the stage's> --cloudformation-execution-policies <its ARN>`): what
// CloudFormation calls to create, update and delete the resource types of the stage's stack
// (infra/pipeline/resource-actions.ts), on that stage's resources only. Each stage has its own
// bootstrap, so its own execution role with its own policy: a template deployed for one stage
// can reach nothing of another. test/infra/pipeline-permissions.spec.ts checks it against the
// resource types each stage synthesises, and test/infra/stage-isolation.spec.ts evaluates it with
// an IAM policy simulator against the other stage's resources.
// Where an ARN names the stage (generated names start with the stack's name, and so does the web
// ACL's, which the stack gives; the project names some resources store-orders-<stage>), the grant
// names it. Where an ARN carries only an id (secrets, API Gateway and its stages, API Gateway's
// execution log groups, Lambda's event source mappings), the resource carries the stage's tag
// (names.ts, STAGE_TAG) and a deny refuses any resource tagged for another stage, and any request
// that would tag one so or untag it; all four services support aws:ResourceTag, aws:RequestTag
// and aws:TagKeys (Service Authorization Reference: list_awssecretsmanager.html,
// list_amazonapigatewaymanagement.html, list_amazoncloudwatchlogs.html, list_awslambda.html; API
// Gateway's child resources take their API's or usage plan's tags,
// apigateway-tagging-supported-resources.html). A mapping is also held to the stage's functions
// by lambda:FunctionArn (stream-permissions.ts).
// It cannot raise its own permissions: every role it creates or changes must carry the stage's
// permissions boundary (condition iam:PermissionsBoundary), it passes roles only to the services
// the stage's roles are for (iam:PassedToService), and it may change no policy of the project.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html
import { Aws } from 'aws-cdk-lib/core';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { ACCOUNT_STACK_NAME, stackNameFor, type StageName } from '../../lib/contract/deployment';
import { stageBootstrap } from './bootstrap';
import {
  generatedNamePrefix,
  permissionsBoundaryArn,
  projectNamePrefix,
  PROJECT_POLICIES_ARN,
  STAGE_TAG,
} from './names';
import { bucketKeyStatement, stackArn } from './permissions';
import { actionsWithoutResourceType, RESOURCE_TYPE_ACTIONS } from './resource-actions';
import { CREATE_MAPPING_ACTION, streamExecutionStatements } from './stream-permissions';
import { scheduleExecutionStatements } from './schedule-permissions';

const arn = (service: string, resource: string, region: string = Aws.REGION) =>
  `arn:${Aws.PARTITION}:${service}:${region}:${Aws.ACCOUNT_ID}:${resource}`;
const apiGateway = (path: string) => `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::${path}`;

/**
 * The services a stage's roles are passed to: the functions' roles (Lambda), the release groups'
 * role (CodeDeploy), the index-lag canary's schedule's role (EventBridge Scheduler). The test
 * compares it with the service principals the stage stacks' roles trust.
 */
export const PASSED_TO_SERVICES = ['lambda.amazonaws.com', 'codedeploy.amazonaws.com', 'scheduler.amazonaws.com'];

/**
 * IAM actions that take the `iam:PermissionsBoundary` condition key (the Service Authorization
 * Reference, list_awsidentityandaccessmanagementiam.html): allowed only where the role has, or is
 * given, the stage's boundary.
 */
export const BOUNDED_ROLE_ACTIONS = [
  'iam:CreateRole',
  'iam:PutRolePermissionsBoundary',
  'iam:PutRolePolicy',
  'iam:DeleteRolePolicy',
  'iam:AttachRolePolicy',
  'iam:DetachRolePolicy',
];

/** What an execution role may never do to the project's policies (every stage's execution policy and boundary). */
export const PROTECTED_POLICY_ACTIONS = [
  'iam:CreatePolicy',
  'iam:CreatePolicyVersion',
  'iam:DeletePolicy',
  'iam:DeletePolicyVersion',
  'iam:SetDefaultPolicyVersion',
  'iam:TagPolicy',
  'iam:UntagPolicy',
];

/** The paths of what a stage stack makes in API Gateway: its APIs, usage plans, custom domain, and their tags. */
const API_GATEWAY_PATHS = [
  '/restapis',
  '/restapis/*',
  '/usageplans',
  '/usageplans/*',
  '/domainnames',
  '/domainnames/*',
  '/tags/*',
];

/** The WAF actions CloudFormation calls for the web ACL and its associations, once each. */
function wafActions(): string[] {
  const types = ['AWS::WAFv2::WebACL', 'AWS::WAFv2::WebACLAssociation'];
  const actions = types.flatMap((type) => RESOURCE_TYPE_ACTIONS[type]?.actions ?? []);
  return [...new Set(actions.filter((action) => action.startsWith('wafv2:')))];
}

/** The services whose resources the stage tag tells apart, with the actions that remove a tag. */
const TAGGED_SERVICES = {
  apigateway: { untag: 'apigateway:DELETE', untagResources: [apiGateway('/tags/*')] },
  secretsmanager: { untag: 'secretsmanager:UntagResource', untagResources: ['*'] },
  logs: { untag: 'logs:UntagResource', untagResources: ['*'] },
  // The event source mappings (stream-permissions.ts); the functions carry no stage tag: their names say it.
  lambda: { untag: 'lambda:UntagResource', untagResources: ['*'] },
} as const;

/**
 * Refusals that keep a stage to its own tagged resources: any action on a resource tagged for
 * another stage, any request that tags a resource for another stage, and removing the tag.
 */
export function otherStageTagDenials(stage: StageName): PolicyStatement[] {
  const services = Object.keys(TAGGED_SERVICES).map((service) => `${service}:*`);
  const another = (key: string) => ({ Null: { [key]: 'false' }, StringNotEquals: { [key]: stage } });
  return [
    new PolicyStatement({
      effect: Effect.DENY,
      actions: services,
      resources: ['*'],
      conditions: another(`aws:ResourceTag/${STAGE_TAG}`),
    }),
    new PolicyStatement({
      effect: Effect.DENY,
      actions: services,
      resources: ['*'],
      conditions: another(`aws:RequestTag/${STAGE_TAG}`),
    }),
    ...Object.values(TAGGED_SERVICES).map(
      ({ untag, untagResources }) =>
        new PolicyStatement({
          effect: Effect.DENY,
          actions: [untag],
          resources: [...untagResources],
          conditions: { 'ForAnyValue:StringEquals': { 'aws:TagKeys': [STAGE_TAG] } },
        }),
    ),
  ];
}

export function executionStatements(stage: StageName): PolicyStatement[] {
  const generated = generatedNamePrefix(stage);
  const own = projectNamePrefix(stage);
  const bootstrap = stageBootstrap(stage);
  const roles = [arn('iam', `role/${generated}*`, '')];
  return [
    new PolicyStatement({ actions: ['lambda:*'], resources: [arn('lambda', `function:${generated}*`)] }),
    // The stage's tables and their streams (`table/<name>/stream/<label>`).
    new PolicyStatement({ actions: ['dynamodb:*'], resources: [arn('dynamodb', `table/${generated}*`)] }),
    // The orders table's change stream: the sync watch's event source mapping and dead-letter queue.
    ...streamExecutionStatements(stage),
    // The index-lag canary's schedule.
    ...scheduleExecutionStatements(stage),
    new PolicyStatement({
      actions: ['apigateway:GET', 'apigateway:POST', 'apigateway:PUT', 'apigateway:PATCH', 'apigateway:DELETE'],
      resources: API_GATEWAY_PATHS.map(apiGateway),
    }),
    // Function and access log groups get generated names; an execution log group is named after its API's id.
    new PolicyStatement({
      actions: ['logs:*'],
      resources: [arn('logs', `log-group:${generated}*`), arn('logs', 'log-group:API-Gateway-Execution-Logs_*')],
    }),
    new PolicyStatement({
      actions: ['cloudwatch:*'],
      resources: [arn('cloudwatch', `alarm:${generated}*`), arn('cloudwatch', `dashboard/${own}`, '')],
    }),
    new PolicyStatement({
      actions: ['codedeploy:*'],
      resources: [
        arn('codedeploy', `application:${own}`),
        arn('codedeploy', `deploymentgroup:${own}/*`),
        arn('codedeploy', `deploymentconfig:${generated}*`),
      ],
    }),
    new PolicyStatement({ actions: ['sns:*'], resources: [arn('sns', `${generated}*`)] }),
    // The cursor key and the canary key: names CloudFormation generates from the logical id alone.
    new PolicyStatement({
      actions: [...(RESOURCE_TYPE_ACTIONS['AWS::SecretsManager::Secret']?.actions ?? [])],
      resources: [arn('secretsmanager', 'secret:*')],
    }),
    // The stage's functions' roles and its release role.
    new PolicyStatement({
      actions: [
        'iam:GetRole',
        'iam:DeleteRole',
        'iam:UpdateRole',
        'iam:UpdateRoleDescription',
        'iam:UpdateAssumeRolePolicy',
        'iam:TagRole',
        'iam:UntagRole',
        'iam:GetRolePolicy',
        'iam:ListRolePolicies',
        'iam:ListAttachedRolePolicies',
      ],
      resources: roles,
    }),
    new PolicyStatement({
      actions: BOUNDED_ROLE_ACTIONS,
      resources: roles,
      conditions: { StringEquals: { 'iam:PermissionsBoundary': permissionsBoundaryArn(stage) } },
    }),
    new PolicyStatement({
      actions: ['iam:PassRole'],
      resources: roles,
      conditions: { StringEquals: { 'iam:PassedToService': PASSED_TO_SERVICES } },
    }),
    // The stage reads the account stack's output (Fn::GetStackOutput).
    new PolicyStatement({
      actions: ['cloudformation:DescribeStacks'],
      resources: [stackArn(stackNameFor(stage)), stackArn(ACCOUNT_STACK_NAME)],
    }),
    // Lambda reads the bundles from the stage's asset bucket as the caller; the BootstrapVersion parameter.
    new PolicyStatement({
      actions: ['s3:GetObject'],
      resources: [`arn:${Aws.PARTITION}:s3:::${bootstrap.assetsBucket}/*`],
    }),
    bucketKeyStatement(),
    new PolicyStatement({ actions: ['ssm:GetParameters'], resources: [bootstrap.versionParameterArn] }),
    // A stage's optional custom domain: its certificate and its alias record (ids, and the operator's zone).
    new PolicyStatement({
      actions: [...(RESOURCE_TYPE_ACTIONS['AWS::CertificateManager::Certificate']?.actions ?? [])],
      resources: [arn('acm', 'certificate/*')],
    }),
    new PolicyStatement({
      actions: ['route53:GetHostedZone', 'route53:ChangeResourceRecordSets', 'route53:ListResourceRecordSets'],
      resources: [`arn:${Aws.PARTITION}:route53:::hostedzone/*`],
    }),
    new PolicyStatement({ actions: ['route53:GetChange'], resources: [`arn:${Aws.PARTITION}:route53:::change/*`] }),
    // The web ACL in front of the stage's APIs (infra/constructs/address-firewall.ts) and its
    // associations with the APIs' stages. A web ACL's ARN carries its name, which the stack gives
    // it under the stage's prefix. WAF authorizes an association on the web ACL and on the API
    // stage it protects (list_awswafv2.html: AssociateWebACL's resource types webacl and
    // apigateway; DisassociateWebACL's apigateway only), and API Gateway authorizes it again as
    // apigateway:SetWebACL on the stage (list_amazonapigatewaymanagement.html): the stage ARNs
    // carry ids, not the stage, so the stage tag tells them apart there (otherStageTagDenials).
    new PolicyStatement({
      actions: wafActions(),
      resources: [
        arn('wafv2', `regional/webacl/${generated}*/*`),
        arn('wafv2', `regional/rulegroup/${generated}*/*`),
        apiGateway('/restapis/*/stages/*'),
      ],
    }),
    new PolicyStatement({ actions: ['apigateway:SetWebACL'], resources: [apiGateway('/restapis/*/stages/*')] }),
    // Actions IAM matches only with "*" (the secret's generated value, the log group listing, a
    // certificate request), but creating an event source mapping: granted above, for the stage's functions only.
    new PolicyStatement({
      actions: actionsWithoutResourceType().filter((action) => action !== CREATE_MAPPING_ACTION),
      resources: ['*'],
    }),
    ...otherStageTagDenials(stage),
    // Whatever the allows above say: the bounds stay as the administrator set them.
    new PolicyStatement({ effect: Effect.DENY, actions: PROTECTED_POLICY_ACTIONS, resources: [PROJECT_POLICIES_ARN] }),
    new PolicyStatement({ effect: Effect.DENY, actions: ['iam:DeleteRolePermissionsBoundary'], resources: ['*'] }),
  ];
}
