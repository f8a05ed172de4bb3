// The policy the bootstrap's CloudFormation execution role gets instead of AdministratorAccess
// (`cdk bootstrap --cloudformation-execution-policies <its ARN>`): the services the app's stacks
// create resources in, each scoped to this project's names where the service allows it.
// test/infra/pipeline.spec.ts checks it against what CloudFormation calls for every resource type
// the app synthesises (infra/pipeline/resource-actions.ts).
// It cannot raise its own permissions: every role it creates or changes must carry the permissions
// boundary (condition iam:PermissionsBoundary), it passes roles only to the services the stacks'
// roles are for (iam:PassedToService), and it may change neither its own policy nor the boundary.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html
import { Aws } from 'aws-cdk-lib/core';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { ASSETS_BUCKET, VERSION_PARAMETER_ARN } from './bootstrap';
import { EXECUTION_POLICY_ARN, NAME_PREFIX, PERMISSIONS_BOUNDARY_ARN, STACK_PREFIX } from './names';
import { actionsWithoutResourceType, RESOURCE_TYPE_ACTIONS } from './resource-actions';
import { streamExecutionStatements } from './stream-permissions';

const arn = (service: string, resource: string, region: string = Aws.REGION) =>
  `arn:${Aws.PARTITION}:${service}:${region}:${Aws.ACCOUNT_ID}:${resource}`;

/**
 * The services the stacks' roles are passed to: the functions' roles (Lambda), the release
 * groups' role (CodeDeploy), the account's CloudWatch role (API Gateway). The test compares it with
 * the service principals the synthesised roles trust.
 */
export const PASSED_TO_SERVICES = ['lambda.amazonaws.com', 'codedeploy.amazonaws.com', 'apigateway.amazonaws.com'];

/**
 * IAM actions that take the `iam:PermissionsBoundary` condition key (the Service Authorization
 * Reference, list_awsidentityandaccessmanagementiam.html): allowed only where the role has, or is
 * given, the boundary.
 */
export const BOUNDED_ROLE_ACTIONS = [
  'iam:CreateRole',
  'iam:PutRolePermissionsBoundary',
  'iam:PutRolePolicy',
  'iam:DeleteRolePolicy',
  'iam:AttachRolePolicy',
  'iam:DetachRolePolicy',
];

/** What the execution role may never do to the two policies that bound it. */
export const PROTECTED_POLICY_ACTIONS = [
  'iam:CreatePolicy',
  'iam:CreatePolicyVersion',
  'iam:DeletePolicy',
  'iam:DeletePolicyVersion',
  'iam:SetDefaultPolicyVersion',
  'iam:TagPolicy',
  'iam:UntagPolicy',
];

/** The WAF actions CloudFormation calls for the web ACL and its associations, once each. */
function wafActions(): string[] {
  const types = ['AWS::WAFv2::WebACL', 'AWS::WAFv2::WebACLAssociation'];
  const actions = types.flatMap((type) => RESOURCE_TYPE_ACTIONS[type]?.actions ?? []);
  return [...new Set(actions.filter((action) => action.startsWith('wafv2:')))];
}

export function executionStatements(): PolicyStatement[] {
  const iamNames = (kind: string) => [STACK_PREFIX, NAME_PREFIX].map((p) => arn('iam', `${kind}/${p}*`, ''));
  return [
    new PolicyStatement({
      actions: ['lambda:*'],
      resources: [arn('lambda', `function:${STACK_PREFIX}*`)],
    }),
    new PolicyStatement({ actions: ['dynamodb:*'], resources: [arn('dynamodb', `table/${STACK_PREFIX}*`)] }),
    // The orders table's change stream: the sync watch's event source mapping and dead-letter queue.
    ...streamExecutionStatements(STACK_PREFIX),
    // REST APIs, stages, usage plans and domain names have ids API Gateway picks: the Region's paths.
    new PolicyStatement({
      actions: ['apigateway:*'],
      resources: [`arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::/*`],
    }),
    // Function and access log groups get generated names; the execution log group is API Gateway's.
    new PolicyStatement({ actions: ['logs:*'], resources: [arn('logs', 'log-group:*')] }),
    new PolicyStatement({
      actions: ['cloudwatch:*'],
      resources: [arn('cloudwatch', 'alarm:*'), arn('cloudwatch', `dashboard/${NAME_PREFIX}*`, '')],
    }),
    new PolicyStatement({ actions: ['codedeploy:*'], resources: [arn('codedeploy', '*')] }),
    new PolicyStatement({ actions: ['sns:*'], resources: [arn('sns', `${STACK_PREFIX}*`)] }),
    // The v2 cursor key: a secret whose name CloudFormation generates (not under the stack's prefix).
    new PolicyStatement({ actions: ['secretsmanager:*'], resources: [arn('secretsmanager', 'secret:*')] }),
    // The functions' roles, the account stack's CloudWatch role and the pipeline's own roles.
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
      resources: iamNames('role'),
    }),
    new PolicyStatement({
      actions: BOUNDED_ROLE_ACTIONS,
      resources: iamNames('role'),
      conditions: { StringEquals: { 'iam:PermissionsBoundary': PERMISSIONS_BOUNDARY_ARN } },
    }),
    new PolicyStatement({
      actions: ['iam:PassRole'],
      resources: iamNames('role'),
      conditions: { StringEquals: { 'iam:PassedToService': PASSED_TO_SERVICES } },
    }),
    new PolicyStatement({
      actions: [
        'iam:GetPolicy',
        'iam:CreatePolicy',
        'iam:DeletePolicy',
        'iam:GetPolicyVersion',
        'iam:CreatePolicyVersion',
        'iam:DeletePolicyVersion',
        'iam:ListPolicyVersions',
        'iam:ListEntitiesForPolicy',
        'iam:TagPolicy',
        'iam:UntagPolicy',
      ],
      resources: iamNames('policy'),
    }),
    new PolicyStatement({
      actions: [...(RESOURCE_TYPE_ACTIONS['AWS::IAM::OIDCProvider']?.actions ?? [])],
      resources: [arn('iam', 'oidc-provider/token.actions.githubusercontent.com', '')],
    }),
    // The stages read the account stack's output (Fn::GetStackOutput).
    new PolicyStatement({
      actions: ['cloudformation:DescribeStacks'],
      resources: [arn('cloudformation', `stack/${STACK_PREFIX}*/*`)],
    }),
    // Lambda reads the bundles from the asset bucket as the caller; the BootstrapVersion parameter.
    new PolicyStatement({ actions: ['s3:GetObject'], resources: [`arn:${Aws.PARTITION}:s3:::${ASSETS_BUCKET}/*`] }),
    new PolicyStatement({ actions: ['ssm:GetParameters'], resources: [VERSION_PARAMETER_ARN] }),
    // A stage's optional custom domain: its certificate and its alias record.
    new PolicyStatement({
      actions: [
        'acm:RequestCertificate',
        'acm:DescribeCertificate',
        'acm:DeleteCertificate',
        'acm:AddTagsToCertificate',
      ],
      resources: [arn('acm', 'certificate/*')],
    }),
    new PolicyStatement({
      actions: ['route53:GetHostedZone', 'route53:ChangeResourceRecordSets', 'route53:ListResourceRecordSets'],
      resources: [`arn:${Aws.PARTITION}:route53:::hostedzone/*`],
    }),
    new PolicyStatement({ actions: ['route53:GetChange'], resources: [`arn:${Aws.PARTITION}:route53:::change/*`] }),
    // The web ACL in front of a stage's APIs (named by CloudFormation) and its associations: WAF
    // authorizes an association on the web ACL and on the stage it protects
    // (list_awswafv2.html: AssociateWebACL's resource types webacl and apigateway).
    new PolicyStatement({
      actions: wafActions(),
      resources: [
        arn('wafv2', 'regional/webacl/*'),
        arn('wafv2', 'regional/rulegroup/*'),
        `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::/restapis/*/stages/*`,
      ],
    }),
    // Actions IAM matches only with "*" (the secret's generated value, GetRandomPassword).
    new PolicyStatement({ actions: actionsWithoutResourceType(), resources: ['*'] }),
    // Whatever the allows above say: the bounds stay as the administrator set them.
    new PolicyStatement({
      effect: Effect.DENY,
      actions: PROTECTED_POLICY_ACTIONS,
      resources: [EXECUTION_POLICY_ARN, PERMISSIONS_BOUNDARY_ARN],
    }),
    new PolicyStatement({ effect: Effect.DENY, actions: ['iam:DeleteRolePermissionsBoundary'], resources: ['*'] }),
  ];
}
